// The PostgreSQL connection pool, its type parsing and transactions.
import pg from 'pg';
import { silentLogger, type Logger } from '../../domain/logger.js';
import { whyStoreUnavailable } from '../unavailable.js';

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
  /**
   * Sessions that plan each named statement once and keep the plan (plan_cache_mode =
   * force_generic_plan): for the pool of the batched hot statements only. Elsewhere a statement
   * without a name would be planned without its values, and some reads need them (decision 33).
   */
  genericPlans?: boolean;
}

/**
 * Settings of every Gantry session. JIT off: no statement of Gantry's gains from it, and the
 * planner compiles a read of a long history (a series, the health counts) for longer than it runs
 * (780 ms of compiling for 17 ms of work, docs/decisions/0032-postgres-sessions-without-jit.md).
 */
const SESSION_SETTINGS = ['-c jit=off'];
/** Named statements are planned once per session, not again with every call's values (decision 33). */
const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';

export function connectionOptions(options: PoolOptions): pg.ClientConfig {
  // A URL's own `options` would replace these (pg lets the URL win), so they are joined into one,
  // the URL's after Gantry's so that what it sets prevails, the schema's last.
  let connectionString = options.url;
  let own: string[] = [];
  if (URL.canParse(options.url)) {
    const url = new URL(options.url);
    const given = url.searchParams.get('options');
    if (given !== null) {
      url.searchParams.delete('options');
      connectionString = url.toString();
      own = [given];
    }
  }
  const schema = options.schema ? [`-c search_path=${options.schema}`] : [];
  const plans = options.genericPlans ? [GENERIC_PLANS] : [];
  return { connectionString, types, application_name: 'gantry', options: [...SESSION_SETTINGS, ...plans, ...own, ...schema].join(' ') };
}

/** How long a query waits for a connection, new or from the pool, before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;

export function createPool(options: PoolOptions, log: Logger = silentLogger): pg.Pool {
  // A database that does not answer fails requests (503) after a while instead of holding them forever.
  const pool = new pg.Pool({
    ...connectionOptions(options),
    max: options.max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // pg-pool listens for errors only while a client is idle: one that breaks while checked out
  // (in a transaction, or between a query and its release) would emit an unhandled 'error' and
  // end the process. Every client therefore gets a listener for its whole life.
  pool.on('connect', (client) => watchConnection(client, log));
  // The pool then drops the broken idle client; watchConnection has already logged why.
  pool.on('error', (err) => log.debug({ err: err.message }, 'idle database connection removed from the pool'));
  return pool;
}

/** Logs the first error of a connection (a dropped one reports several) and keeps it from crashing the process. */
function watchConnection(client: pg.ClientBase, log: Logger): void {
  let reported = false;
  client.on('error', (err: Error) => {
    if (reported) return;
    reported = true;
    const unavailable = whyStoreUnavailable(err);
    if (unavailable) log.warn({ code: unavailable.code, reason: unavailable.reason }, 'database connection lost');
    else log.error({ err }, 'database connection failed');
  });
}

/**
 * The database's own clock in epoch milliseconds, as the replicas' timestamps are kept: one clock
 * that every process judging a replica's heartbeat reads alike, whatever its own clock says.
 */
export const DATABASE_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** Runs `work` in one transaction on one connection, rolling back when it throws. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await work(client);
    await client.query('COMMIT');
  } catch (error) {
    // A connection that cannot even roll back is in no state to be reused: it is destroyed.
    const unusable = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
    );
    client.release(unusable);
    throw error;
  }
  client.release();
  return result;
}
