// A PostgreSQL database of its own for a test that disturbs connections (terminates backends,
// refuses connections) or must not hear other tests' notifications (they reach every session of
// a database): other tests on the shared server are never touched, and it is dropped at the end. The admin connection lives in the server's own test database, outside the storm.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { NO_POSTGRES, POSTGRES_URL } from './test-store.js';

export interface ThrowawayDatabase {
  name: string;
  /** The URL Gantry connects with. */
  url: string;
  /** Ends every connection to the database but the admin's own; resolves with how many. */
  terminateBackends(): Promise<number>;
  allowConnections(allowed: boolean): Promise<void>;
  drop(): Promise<void>;
}

export async function createThrowawayDatabase(prefix: string): Promise<ThrowawayDatabase> {
  if (!POSTGRES_URL) throw new Error(NO_POSTGRES);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  // The admin connection is never one of the terminated backends, but a server-side hiccup must not crash the test.
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async terminateBackends() {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      return rowCount ?? 0;
    },
    async allowConnections(allowed) {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allowed}`);
    },
    async drop() {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
