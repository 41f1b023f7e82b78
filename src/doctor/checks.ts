// `gantry doctor`'s checks: each says what it found and, when something is wrong, what to do.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { GantryConfig } from '../config.js';
import { databaseFile, storeLocation } from '../store/store-location.js';
import { readMigrations } from '../store/sqlite/migrate.js';
import { widePermissions } from '../store/sqlite/private-files.js';
import { ServerLock } from '../store/sqlite/server-lock.js';
import { connectionOptions, DATABASE_NOW_MS } from '../store/postgres/database.js';
import { postgresSchemaState, REPLICA_LIVE_WITHIN_MS } from '../store/postgres/migrate.js';
import { CLOCK_SKEW_WARNING_MS } from '../cluster/database-clock.js';

export interface CheckResult {
  status: 'ok' | 'warn' | 'fail';
  name: string;
  detail: string;
}

const ok = (name: string, detail: string): CheckResult => ({ status: 'ok', name, detail });
const warn = (name: string, detail: string): CheckResult => ({ status: 'warn', name, detail });
const fail = (name: string, detail: string): CheckResult => ({ status: 'fail', name, detail });

const CONNECT_TIMEOUT_MS = 5000;
const NOTIFY_TIMEOUT_MS = 3000;

export function schemaVerdict(applied: number[], known: number[]): CheckResult {
  const newest = Math.max(0, ...known);
  const ahead = applied.filter((v) => v > newest);
  if (ahead.length > 0)
    return fail('schema', `the database has migration ${Math.max(...ahead)}, newer than this Gantry (up to ${newest}): upgrade Gantry`);
  const missing = known.filter((v) => !applied.includes(v));
  if (applied.length === 0) return fail('schema', 'the database has no Gantry schema: run `gantry migrate` (or start `gantry serve` once)');
  if (missing.length > 0) return fail('schema', `migrations ${missing.join(', ')} are not applied: run \`gantry migrate\``);
  return ok('schema', `up to date (migration ${newest})`);
}

export async function checkSqlite(config: GantryConfig): Promise<CheckResult[]> {
  const file = databaseFile(config);
  if (!existsSync(file))
    return [fail('database', `${file} does not exist: start \`gantry serve\` or run \`gantry migrate\` with this --data-dir`)];
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const mode = db.pragma('journal_mode', { simple: true }) as string;
    const hasLedger = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get() !== undefined;
    const applied = hasLedger
      ? (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version)
      : [];
    const integrity = db.pragma('quick_check', { simple: true }) as string;
    const wide = widePermissions(file);
    const server = ServerLock.heldBy(file);
    return [
      ok('database', `SQLite at ${file} (journal ${mode})`),
      server ? ok('server', `a ${server} is serving it`) : warn('server', 'no server is serving this data directory'),
      wide.length === 0
        ? ok('permissions', 'the data directory and database files are private to their owner')
        : warn(
            'permissions',
            `${wide.join(', ')}: other users can read secrets; run chmod 700 on the directory and chmod 600 on the files`,
          ),
      schemaVerdict(
        applied,
        readMigrations().map((m) => m.version),
      ),
      integrity === 'ok' ? ok('integrity', 'quick_check passed') : fail('integrity', `quick_check: ${integrity}: restore from a backup`),
    ];
  } catch (error) {
    return [fail('database', `cannot open ${file}: ${(error as Error).message}`)];
  } finally {
    db?.close();
  }
}

export async function checkPostgres(config: GantryConfig): Promise<CheckResult[]> {
  const options = { url: config.databaseUrl!, max: 2 };
  const pool = new pg.Pool({ ...connectionOptions(options), max: 2, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', () => undefined);
  const results: CheckResult[] = [];
  try {
    const { rows } = await pool.query<{ version: string; now: number }>(
      `SELECT current_setting('server_version') AS version, ${DATABASE_NOW_MS} AS now`,
    );
    const skewMs = Math.abs(Date.now() - rows[0]!.now);
    results.push(ok('database', `PostgreSQL ${rows[0]!.version} at ${storeLocation(config)}`));
    results.push(
      skewMs > CLOCK_SKEW_WARNING_MS
        ? warn(
            'clock',
            `this machine's clock is ${skewMs} ms off the database's: Gantry keeps the database's time, but logs keep this one; run NTP on every replica`,
          )
        : ok('clock', `within ${skewMs} ms of the database`),
    );
    const state = await postgresSchemaState(pool);
    const schema = schemaVerdict(state.applied, state.known);
    results.push(schema);
    if (schema.status !== 'ok') return results;
    results.push(await checkNotify(config));
    results.push(await checkReplicas(pool, Math.max(...state.applied)));
    return results;
  } catch (error) {
    results.push(fail('database', `cannot reach ${storeLocation(config)}: ${(error as Error).message}`));
    return results;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** Replicas wake each other with LISTEN/NOTIFY; some poolers in transaction mode break it. */
async function checkNotify(config: GantryConfig): Promise<CheckResult> {
  const client = new pg.Client(connectionOptions({ url: config.databaseUrl!, max: 1 }));
  try {
    await client.connect();
    await client.query('LISTEN gantry_doctor');
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), NOTIFY_TIMEOUT_MS);
      client.on('notification', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    await client.query(`NOTIFY gantry_doctor, 'ping'`);
    return (await heard)
      ? ok('notifications', 'LISTEN/NOTIFY delivers')
      : fail('notifications', 'a NOTIFY was not delivered: connect replicas directly or through a session-mode pooler');
  } catch (error) {
    return fail('notifications', `LISTEN failed: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The live replicas, their leader, and any that run a Gantry older than the schema (decision 45). */
async function checkReplicas(pool: pg.Pool, schemaVersion: number): Promise<CheckResult> {
  const now = DATABASE_NOW_MS;
  const live = await pool.query<{ id: string; url: string; schema_version: number | null }>(
    `SELECT id, url, schema_version FROM replicas WHERE seen_at > ${now} - ${REPLICA_LIVE_WITHIN_MS} ORDER BY started_at`,
  );
  const lease = await pool.query<{ holder: string; left_ms: number }>(
    `SELECT holder, expires_at - ${now} AS left_ms FROM leases WHERE name = 'leader'`,
  );
  const leader = lease.rows[0];
  const names = live.rows.map((r) => `${r.id} (${r.url})`).join(', ');
  if (live.rows.length === 0) return warn('replicas', 'no replica is running against this database');
  if (!leader || leader.left_ms < 0)
    return fail('replicas', `${live.rows.length} running (${names}) but none holds the leader lease: check their logs`);
  const running = `${live.rows.length} running: ${names}; leader ${leader.holder}`;
  const older = live.rows.filter((r) => r.schema_version === null || r.schema_version < schemaVersion);
  if (older.length === 0) return ok('replicas', running);
  const versions = older.map((r) => `${r.id} knows ${r.schema_version ?? 'an older one'}`).join(', ');
  return warn('replicas', `${running}; older Gantry than the schema (${schemaVersion}): ${versions}; replace them`);
}
