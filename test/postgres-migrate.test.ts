// PostgreSQL migrations when several replicas start at once, beside replicas of an older Gantry,
// and `gantry doctor`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { CLI } from './support/processes.js';
import { createPool } from '../src/store/postgres/database.js';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR, postgresSchemaState, postgresSchemaVersion } from '../src/store/postgres/migrate.js';
import { readMigrationFiles } from '../src/store/shared/migrations.js';
import { ReplicaWorkers } from '../src/cluster/replica-workers.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { withClockOff } from './support/manual-time.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (migrations)`);
const skip = NO_POSTGRES ?? false;

/** `gantry <args>` in a child process, without blocking this one's event loop meanwhile. */
async function gantry(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

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

test('a migration older replicas cannot run beside waits until they stop, and says which', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 1 });
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  try {
    // A database and a live replica as the Gantry before migration 019 left them.
    await migratePostgres(
      pool,
      readMigrationFiles(POSTGRES_MIGRATIONS_DIR).filter((migration) => migration.version < 19),
    );
    await client.query(`INSERT INTO replicas (id, url, started_at, seen_at) VALUES ('old-1', 'http://127.0.0.1:9', $1, $1)`, [Date.now()]);
    // Its heartbeat goes on while the commands run, however long they take to start.
    const heartbeat = setInterval(() => void client.query(`UPDATE replicas SET seen_at = $1 WHERE id = 'old-1'`, [Date.now()]), 500);
    const cli = await gantry(['migrate', '--database', schema.url]);
    const serve = await gantry(['serve', '--port', '0', '--database', schema.url]);
    clearInterval(heartbeat);
    assert.equal(cli.status, 1, cli.stdout);
    assert.match(
      cli.stderr,
      /^gantry: migration 019_leases_end_by_the_deadline cannot be applied while replicas of an older Gantry run \(they set leases past the execution deadline[^)]*\): stop old-1 at http:\/\/127\.0\.0\.1:9 \(seen \d+\.\d s ago\)/,
    );
    assert.doesNotMatch(cli.stderr, / {4}at /, 'no stack trace');
    assert.equal(serve.status, 1, 'a new replica does not start');
    assert.match(serve.stderr, /^gantry: migration 019_leases_end_by_the_deadline cannot be applied .*: stop old-1 at/);
    assert.equal(Math.max(...(await postgresSchemaState(pool)).applied), 18, 'nothing was applied');

    // Its heartbeat stops: once its row is older than a live replica's, the upgrade goes through.
    await client.query(`UPDATE replicas SET seen_at = $1 WHERE id = 'old-1'`, [Date.now() - 11_000]);
    const applied = await migratePostgres(pool);
    assert.deepEqual(applied.map((m) => m.version).slice(0, 3), [19, 20, 21]);
  } finally {
    await client.end();
    await pool.end();
    await schema.drop();
  }
});

test('a replica announces the schema it knows, which a later migration checks against, whatever its clock says', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 2 });
  const current = postgresSchemaVersion();
  const later = (olderReplicasMustStop?: string) => [
    ...readMigrationFiles(POSTGRES_MIGRATIONS_DIR),
    {
      version: current + 1,
      name: 'later',
      sql: 'CREATE TABLE later_table (n INTEGER)',
      ...(olderReplicasMustStop ? { olderReplicasMustStop } : {}),
    },
  ];
  const replica = new ReplicaWorkers(pool, 'now-1', () => 'http://127.0.0.1:10', 3000, current);
  try {
    await migratePostgres(pool);
    // Its clock is an hour behind: its heartbeat is kept, and judged, by the database's clock.
    await withClockOff(-3_600_000, () => replica.beat([]));
    const row = await pool.query<{ schema_version: number }>(`SELECT schema_version FROM replicas WHERE id = 'now-1'`);
    assert.equal(row.rows[0]?.schema_version, current);
    await assert.rejects(migratePostgres(pool, later('it reads a column this drops')), (error: Error) => {
      assert.match(
        error.message,
        new RegExp(
          `migration ${String(current + 1).padStart(3, '0')}_later cannot be applied .*\\(it reads a column this drops\\): stop now-1 at`,
        ),
      );
      return true;
    });
    const applied = await migratePostgres(pool, later());
    assert.deepEqual(
      applied.map((m) => m.name),
      ['later'],
      'a migration older replicas can run beside goes through',
    );
  } finally {
    await replica.close();
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

test('gantry doctor names the live replicas that run a Gantry older than the schema', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 1 });
  // Both replicas' heartbeats go on while doctor runs, however long it takes to start.
  const heartbeat = setInterval(() => void pool.query('UPDATE replicas SET seen_at = $1', [Date.now()]).catch(() => undefined), 500);
  try {
    await migratePostgres(pool);
    await pool.query(`INSERT INTO leases (name, holder, expires_at) VALUES ('leader', 'new-1', $1)`, [Date.now() + 600_000]);
    await pool.query(
      `INSERT INTO replicas (id, url, started_at, seen_at, schema_version) VALUES ('new-1', 'http://127.0.0.1:11', $1, $1, $2)`,
      [Date.now(), postgresSchemaVersion()],
    );
    assert.match(
      (await gantry(['doctor', '--database', schema.url])).stdout,
      /ok +replicas +1 running: new-1 \(http:\/\/127\.0\.0\.1:11\); leader new-1/,
    );
    await pool.query(`INSERT INTO replicas (id, url, started_at, seen_at) VALUES ('old-1', 'http://127.0.0.1:12', $1, $1)`, [Date.now()]);
    const mixed = await gantry(['doctor', '--database', schema.url]);
    assert.equal(mixed.status, 0, 'a warning, not a failure');
    assert.match(
      mixed.stdout,
      new RegExp(
        `warn +replicas +2 running: .*; leader new-1; older Gantry than the schema \\(${postgresSchemaVersion()}\\): old-1 knows an older one; replace them`,
      ),
    );
  } finally {
    clearInterval(heartbeat);
    await pool.end();
    await schema.drop();
  }
});
