// PostgreSQL for the benchmarks: a fresh schema per deployment, dropped afterwards, and the
// server's processes, whose CPU a deployment on PostgreSQL costs.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function postgresPids(): number[] {
  try {
    return execFileSync('pgrep', ['-u', 'postgres'], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

/** Runs `work` with a URL whose search_path is a new schema, dropped afterwards. */
export async function withSchema<T>(postgresUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const schema = `gantry_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  // Appended as text: a URL naming a Unix socket (`postgres://user@/db?host=/run/postgresql`)
  // is not one `new URL` parses.
  const url = `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  try {
    return await work(url);
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

/** Runs one maintenance statement (ANALYZE, VACUUM) on its own connection to `url`. */
export async function runStatement(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
