// Whether a store failure means the database cannot be reached right now (stopped, restarting,
// unreachable, out of connections, or an SQLite file held by another process) rather than a
// fault in Gantry. Such a request may simply be retried, so callers are told 503, not 500.

/** Socket errors: nothing answers at the database's address, or the connection broke. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (shutting down, crashed,
 * starting up) and 53300 (too many connections).
 */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

export function storeUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code) || code === 'SQLITE_BUSY')) return true;
  // node-postgres reports a dropped connection and a connect timeout without a code.
  return /^Connection terminated|timeout exceeded when trying to connect/.test(error.message);
}
