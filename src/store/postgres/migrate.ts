// Numbered migrations for PostgreSQL. Several replicas may start at once: the whole run holds a
// transaction-scoped advisory lock, so one applies and the others then find nothing to do.
// A migration that older replicas cannot run beside waits until none of them is live (decision 45).
import type pg from 'pg';
import { shippedFile } from '../../paths.js';
import { migrationFileName, newestVersion, pendingMigrations, readMigrationFiles, type Migration } from '../shared/migrations.js';
import { SchemaError } from '../shared/refusals.js';
import { DATABASE_NOW_MS, transaction } from './database.js';

export const POSTGRES_MIGRATIONS_DIR = shippedFile('store', 'postgres', 'migrations');

/** An arbitrary constant that names Gantry's migration lock among advisory locks. */
const MIGRATION_LOCK = 7_146_201_337;
/**
 * A replica whose heartbeat (every second) was seen this recently counts as live: for a migration
 * older replicas cannot run beside, and for `gantry doctor`, so both name the same replicas.
 */
export const REPLICA_LIVE_WITHIN_MS = 10_000;

let newestKnown: number | undefined;
/** The schema version this Gantry brings a database to, which its replicas announce on their heartbeat. */
export function postgresSchemaVersion(): number {
  newestKnown ??= newestVersion(readMigrationFiles(POSTGRES_MIGRATIONS_DIR));
  return newestKnown;
}

export interface SchemaState {
  applied: number[];
  known: number[];
}

export async function migratePostgres(pool: pg.Pool, migrations = readMigrationFiles(POSTGRES_MIGRATIONS_DIR)): Promise<Migration[]> {
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const pending = pendingMigrations(migrations, applied);
    await refuseBesideOlderReplicas(client, pending);
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
    }
    return pending;
  });
}

/**
 * Throws, naming them, when live replicas know a schema older than a pending migration they cannot
 * run beside. A replica's version comes from its heartbeat row; a row without one (a Gantry from
 * before the column, or before the column exists) is older than every such migration.
 */
async function refuseBesideOlderReplicas(client: pg.PoolClient, pending: Migration[]): Promise<void> {
  const first = pending.find((m) => m.olderReplicasMustStop !== undefined);
  if (!first) return;
  const table = await client.query<{ found: string | null }>(`SELECT to_regclass('replicas')::text AS found`);
  if (!table.rows[0]?.found) return;
  // Read through to_jsonb so the query holds whether or not the schema_version column exists yet.
  // Judged by the database's clock, as doctor judges them: the machine migrating may be any.
  const { rows } = await client.query<{ id: string; url: string; seen_ago_ms: string; schema_version: number | null }>(
    `SELECT id, url, ${DATABASE_NOW_MS} - seen_at AS seen_ago_ms, (to_jsonb(r) ->> 'schema_version')::int AS schema_version
     FROM replicas r WHERE seen_at > ${DATABASE_NOW_MS} - $1 ORDER BY id`,
    [REPLICA_LIVE_WITHIN_MS],
  );
  const older = rows.filter((r) => r.schema_version === null || r.schema_version < first.version);
  if (older.length === 0) return;
  const named = older.map((r) => `${r.id} at ${r.url} (seen ${(Number(r.seen_ago_ms) / 1000).toFixed(1)} s ago)`).join(', ');
  throw new SchemaError(
    `migration ${migrationFileName(first)} cannot be applied while replicas of an older Gantry run ` +
      `(${first.olderReplicasMustStop}): stop ${named}, then migrate again. A replica stopped without shutting down ` +
      `counts as live for ${REPLICA_LIVE_WITHIN_MS / 1000} s after its last heartbeat.`,
  );
}

/** What `gantry doctor` compares: the versions the database has against the ones this Gantry ships. */
export async function postgresSchemaState(pool: pg.Pool): Promise<SchemaState> {
  const known = readMigrationFiles(POSTGRES_MIGRATIONS_DIR).map((m) => m.version);
  const exists = await pool.query<{ found: string | null }>(`SELECT to_regclass('schema_migrations')::text AS found`);
  if (exists.rows[0]?.found === null || exists.rows[0]?.found === undefined) return { applied: [], known };
  const applied = (await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
    (r) => r.version,
  );
  return { applied, known };
}
