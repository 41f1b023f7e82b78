// The PostgreSQL connection pool, its type parsing and transactions.
import pg from 'pg';

const INT8_OID = 20;

/** BIGINT columns hold epoch milliseconds and counts, all well inside Number's exact range. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface PoolOptions {
  url: string;
  max: number;
  /** Schema to work in (tests isolate themselves in one each); the default is the URL's search_path. */
  schema?: string;
}

export function connectionOptions(options: PoolOptions): pg.ClientConfig {
  return {
    connectionString: options.url,
    types,
    application_name: 'gantry',
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
}

/** How long a query waits for a connection, new or from the pool, before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;

export function createPool(options: PoolOptions): pg.Pool {
  // A database that does not answer fails requests (503) after a while instead of holding them forever.
  const pool = new pg.Pool({ ...connectionOptions(options), max: options.max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle client that loses its connection is dropped by the pool; the error must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** Runs `work` in one transaction on one connection, rolling back when it throws. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
