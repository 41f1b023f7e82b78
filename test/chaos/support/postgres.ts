// Throwaway PostgreSQL databases for the multi-replica scenarios. They are created on the shared
// server named by GANTRY_TEST_POSTGRES_URL and dropped afterwards; the server itself is never
// stopped or reconfigured, only the throwaway database's own connections are cut.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_URL = process.env.GANTRY_TEST_POSTGRES_URL;
/** Why the PostgreSQL scenarios cannot run here, or false when they can. */
export const POSTGRES_SKIP: string | false = POSTGRES_URL
  ? false
  : 'GANTRY_TEST_POSTGRES_URL is not set: PostgreSQL chaos scenarios skipped';

/** Runs statements on the maintenance connection (the database of GANTRY_TEST_POSTGRES_URL, never the throwaway one). */
async function onAdminConnection<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export class ThrowawayDatabase {
  private constructor(
    readonly name: string,
    readonly url: string,
  ) {}

  static async create(): Promise<ThrowawayDatabase> {
    if (!POSTGRES_URL) throw new Error(String(POSTGRES_SKIP));
    const name = `gantry_chaos_${randomBytes(5).toString('hex')}`;
    await onAdminConnection((client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return new ThrowawayDatabase(name, url.toString());
  }

  /** Ends every connection to this database (the replicas' pools and listeners); returns how many. */
  async terminateBackends(): Promise<number> {
    return onAdminConnection(async (client) => {
      const result = await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [this.name],
      );
      return result.rowCount ?? 0;
    });
  }

  /** Refuses (false) or allows again (true) new connections to this database only. */
  async allowConnections(allowed: boolean): Promise<void> {
    await onAdminConnection((client) => client.query(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS ${allowed}`));
  }

  async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** The URL of the replica holding the leader lease, if any. */
  async leaderUrl(): Promise<string | undefined> {
    const rows = await this.query<{ url: string }>(
      `SELECT r.url FROM leases l JOIN replicas r ON r.id = l.holder WHERE l.name = 'leader' AND l.expires_at > (extract(epoch from clock_timestamp()) * 1000)`,
    );
    return rows[0]?.url;
  }

  async drop(): Promise<void> {
    await onAdminConnection(async (client) => {
      await client.query(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await client.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    });
  }
}
