// Numbered migrations for PostgreSQL. Several replicas may start at once: the whole run holds a
// transaction-scoped advisory lock, so one applies and the others then find nothing to do.
import type pg from 'pg';
import { shippedFile } from '../../paths.js';
import { pendingMigrations, readMigrationFiles, type Migration } from '../shared/migrations.js';
import { transaction } from './database.js';

export const POSTGRES_MIGRATIONS_DIR = shippedFile('store', 'postgres', 'migrations');

/** An arbitrary constant that names Gantry's migration lock among advisory locks. */
const MIGRATION_LOCK = 7_146_201_337;

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
