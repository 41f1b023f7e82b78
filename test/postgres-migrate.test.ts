// PostgreSQL migrations when several replicas start at once, and `gantry doctor`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { CLI } from './support/processes.js';
import { createPool } from '../src/store/postgres/database.js';
import { migratePostgres, postgresSchemaState } from '../src/store/postgres/migrate.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (migrations)`);
const skip = NO_POSTGRES ?? false;

test('replicas migrating one database at once apply each migration exactly once', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pools = [1, 2, 3].map(() => createPool({ url: schema.url, max: 1 }));
  try {
    const results = await Promise.all(pools.map((pool) => migratePostgres(pool)));
    const applied = results.map((r) => r.length);
    assert.equal(applied.filter((n) => n > 0).length, 1, `one replica applied, the others found nothing to do: ${applied.join(', ')}`);
    const state = await postgresSchemaState(pools[0]!);
    assert.deepEqual(state.applied, state.known);
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await schema.drop();
  }
});

test('a database newer than this Gantry is refused', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 1 });
  try {
    await migratePostgres(pool);
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    await client.query(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'now')`);
    await client.end();
    await assert.rejects(migratePostgres(pool), /schema version 999 is newer than this Gantry/);
  } finally {
    await pool.end();
    await schema.drop();
  }
});

test('gantry doctor names a missing schema, then passes once migrated', { skip }, async () => {
  const schema = await createPostgresSchema();
  const doctor = () => spawnSync(process.execPath, [...CLI, 'doctor', '--database', schema.url], { encoding: 'utf8' });
  try {
    const before = doctor();
    assert.equal(before.status, 1);
    assert.match(before.stdout, /FAIL +schema +the database has no Gantry schema: run `gantry migrate`/);
    const migrated = spawnSync(process.execPath, [...CLI, 'migrate', '--database', schema.url], { encoding: 'utf8' });
    assert.match(migrated.stdout, /applied 001_schema/);
    const after = doctor();
    assert.equal(after.status, 0, after.stdout);
    assert.match(after.stdout, /ok +schema +up to date/);
    assert.match(after.stdout, /warn +replicas +no replica is running/);
  } finally {
    await schema.drop();
  }
});
