// The store the suite runs against, chosen by the environment: the embedded SQLite (default) or
// PostgreSQL (GANTRY_TEST_STORE=postgres with GANTRY_TEST_POSTGRES_URL). On PostgreSQL every
// store gets its own schema, so tests running side by side never see each other's rows.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Store } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';

export const POSTGRES_URL = process.env.GANTRY_TEST_POSTGRES_URL;
export const TEST_STORE = process.env.GANTRY_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** Why a PostgreSQL-only test cannot run here, or undefined when it can. */
export const NO_POSTGRES = POSTGRES_URL ? undefined : 'GANTRY_TEST_POSTGRES_URL is not set: PostgreSQL tests skipped';

/** The --secret-key of test deployments on PostgreSQL (on SQLite they make a key file). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 'gantry-test').toString('base64');

export interface TestStore {
  store: Store;
  /**
   * Flags that make a Gantry process use this same store (PostgreSQL: URL and schema, and the
   * secret key replicas sharing it need to store secrets).
   */
  flags: { database?: string; secretKey?: string };
  /** A second, independent connection to the same data, as another process would open. */
  reopen(): Promise<Store>;
  drop(): Promise<void>;
}

/** A fresh, empty PostgreSQL schema; its name travels in the URL's `options` so child processes use it too. */
export async function createPostgresSchema(): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  if (!POSTGRES_URL) throw new Error(NO_POSTGRES);
  const schema = `gantry_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

export async function openTestStore(dataDir: string): Promise<TestStore> {
  // The runner (scripts/run-tests.mjs) runs every file that opened a store on SQLite again on PostgreSQL.
  const users = process.env.GANTRY_TEST_STORE_USERS;
  if (users && process.argv[1]) appendFileSync(users, `${process.argv[1]}\n`);
  if (TEST_STORE === 'sqlite') {
    const file = join(dataDir, 'gantry.db');
    return { store: new SqliteStore(file), flags: {}, reopen: async () => new SqliteStore(file), drop: async () => undefined };
  }
  const schema = await createPostgresSchema();
  const store = await PostgresStore.open({ url: schema.url, max: 4 });
  return {
    store,
    flags: { database: schema.url, secretKey: TEST_SECRET_KEY },
    reopen: () => PostgresStore.open({ url: schema.url, max: 4 }),
    drop: schema.drop,
  };
}
