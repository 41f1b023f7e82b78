// Gantry's PostgreSQL sessions run without JIT (it compiled a long history's reads for longer than
// they ran), and settings the database URL gives of its own still apply and prevail. The sessions
// of the batched job statements keep one plan per statement; the others plan each call with its values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPool } from '../src/store/postgres/database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { aJob, aQueue } from './store-conformance/records.js';

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

test("the job statements' sessions plan each statement once; the other sessions plan with the call's values", { skip }, async (t) => {
  const schema = await createPostgresSchema();
  // Two connections: one for the job statements, so every insert below runs on the same session.
  const store = await PostgresStore.open({ url: schema.url, max: 2 });
  t.after(async () => {
    await store.close();
    await schema.drop();
  });
  const queue = aQueue();
  for (let i = 0; i < 8; i++) await store.jobs.insert(aJob(queue));
  const { rows } = await store.batchPool.query<{ generic_plans: number; custom_plans: number }>(
    "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'gantry_jobs_insert'",
  );
  // Left to choose (plan_cache_mode auto), PostgreSQL plans this one anew with every call: a plan for
  // arrays of unknown length costs more than one for the arrays at hand.
  assert.deepEqual(rows, [{ generic_plans: 8, custom_plans: 0 }]);
  const mode = async (pool: typeof store.pool) =>
    (await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode;
  assert.equal(await mode(store.batchPool), 'force_generic_plan');
  assert.equal(await mode(store.pool), 'auto');
});
