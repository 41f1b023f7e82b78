// Gantry's PostgreSQL sessions run without JIT (it compiled a long history's reads for longer than
// they ran), and settings the database URL gives of its own still apply and prevail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPool } from '../src/store/postgres/database.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (sessions)`);
const skip = NO_POSTGRES ?? false;

async function settingsOf(url: string, schema?: string): Promise<{ jit: string; search_path: string; work_mem: string }> {
  const pool = createPool({ url, max: 1, ...(schema ? { schema } : {}) });
  try {
    const { rows } = await pool.query(
      "SELECT current_setting('jit') AS jit, current_setting('search_path') AS search_path, current_setting('work_mem') AS work_mem",
    );
    return rows[0];
  } finally {
    await pool.end();
  }
}

test('a session runs without JIT, with the options of the URL applied too', { skip }, async (t) => {
  const schema = await createPostgresSchema();
  t.after(() => schema.drop());
  const url = new URL(schema.url); // its options set the search_path
  url.searchParams.set('options', `${url.searchParams.get('options')} -c work_mem=5MB`);
  assert.deepEqual(await settingsOf(url.toString()), { jit: 'off', search_path: schema.schema, work_mem: '5MB' });
});

test("a URL's own setting prevails over Gantry's, and a schema given apart over the URL's", { skip }, async (t) => {
  const schema = await createPostgresSchema();
  t.after(() => schema.drop());
  const url = new URL(schema.url);
  url.searchParams.set('options', '-c jit=on -c search_path=elsewhere');
  const settings = await settingsOf(url.toString(), schema.schema);
  assert.deepEqual([settings.jit, settings.search_path], ['on', schema.schema]);
});
