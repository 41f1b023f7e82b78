// Whether a store failure means the database is not there right now (stopped, restarting,
// unreachable, refusing connections, out of connections, or an SQLite file held by another
// process) rather than a fault in Gantry. Such a request may simply be retried, so callers are
// told 503, not 500, and the log says which condition it was.

import type { Logger } from '../domain/logger.js';

export interface Unavailability {
  /** The error's code (errno or SQLSTATE), or a name for node-postgres's code-less errors. */
  code: string;
  reason: string;
}

/** Socket errors: nothing answers at the database's address, or the connection broke. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections at the database address',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection broke while sending',
  EHOSTUNREACH: 'the database host is unreachable',
  ENETUNREACH: 'the database network is unreachable',
  ENOTFOUND: 'the database host name does not resolve',
  EAI_AGAIN: 'the database host name could not be resolved now',
};

/** PostgreSQL SQLSTATEs that say the server or database cannot take this connection now. */
const SQLSTATE_REASONS: Record<string, string> = {
  '57P01': 'the server ended the connection (administrator command or shutdown)',
  '57P02': 'the server is shutting down after a crash',
  '57P03': 'the server cannot accept connections now (starting up or in recovery)',
  '53300': 'the server has no connection slots left',
  '3D000': 'the database does not exist',
};

/** node-postgres reports a dropped connection, an unusable client and a pool timeout without a code. */
const DRIVER_MESSAGES: [RegExp, Unavailability][] = [
  [/^Connection terminated/, { code: 'CONNECTION_TERMINATED', reason: 'the connection was closed unexpectedly' }],
  [/timeout exceeded when trying to connect/, { code: 'POOL_TIMEOUT', reason: 'no connection could be had from the pool in time' }],
  [/is not queryable/, { code: 'CONNECTION_BROKEN', reason: 'the connection had already failed' }],
];

/** Errors wrapping others (AggregateError from dual-stack connects, `cause`) are looked into this deep. */
const MAX_DEPTH = 3;

export function whyStoreUnavailable(error: unknown, depth = 0): Unavailability | undefined {
  if (!(error instanceof Error) || depth > MAX_DEPTH) return undefined;
  const found = byCode(error) ?? DRIVER_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
  if (found) return found;
  const inner = [...(error instanceof AggregateError ? (error.errors as unknown[]) : []), error.cause];
  for (const wrapped of inner) {
    const cause = whyStoreUnavailable(wrapped, depth + 1);
    if (cause) return cause;
  }
  return undefined;
}

/**
 * Log fields for a store failure: the condition's code and reason when the database is not there
 * (no stack, as it is no fault of Gantry's), else the error itself.
 */
export function storeErrorFields(error: unknown): { code: string; reason: string } | { err: unknown } {
  return whyStoreUnavailable(error) ?? { err: error };
}

export function storeUnavailable(error: unknown): boolean {
  return whyStoreUnavailable(error) !== undefined;
}

function byCode(error: Error): Unavailability | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  const reason = NETWORK_REASONS[code] ?? SQLSTATE_REASONS[code];
  if (reason) return { code, reason };
  // Class 08: connection exception (cannot connect, connection failure, protocol violation).
  if (code.startsWith('08')) return { code, reason: 'connection exception' };
  // 55000 (object not in prerequisite state) is also raised for unrelated objects; only the
  // connection refusal of a database with ALLOW_CONNECTIONS false counts.
  if (code === '55000' && /accepting connections/i.test(error.message))
    return { code, reason: 'the database does not accept connections now' };
  if (code === 'SQLITE_BUSY') return { code, reason: 'the SQLite file is locked by another process' };
  return undefined;
}

/**
 * A background pass that failed: a warning with the condition's code while the database is away
 * (the next pass tries again), else an error with its stack, a fault to look into.
 */
export function logPassFailure(log: Pick<Logger, 'warn' | 'error'>, error: unknown, message: string): void {
  const away = whyStoreUnavailable(error);
  if (away) log.warn(away, message);
  else log.error({ err: error }, message);
}
