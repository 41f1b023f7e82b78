// Rate-limit windows shared by every replica: one statement reads the account's windows, admits
// the request only when all have room, and counts it in each. Requests racing on different
// replicas may each be admitted at the last unit, so the overshoot is bounded by concurrency,
// never multiplied by the number of replicas.
import type pg from 'pg';
import type { RateLimitQuotas } from '../config.js';
import { WINDOWS, type RateDecision, type RateLimiter, type WindowState } from './rate-limiter.js';

const CONSUME = `
WITH cur AS (
  SELECT w.name, w.start, w.quota,
         coalesce(CASE WHEN r.window_start = w.start THEN r.count END, 0) AS count
  FROM unnest($2::text[], $3::bigint[], $4::int[]) AS w(name, start, quota)
  LEFT JOIN rate_windows r ON r.account_id = $1 AND r.window_name = w.name
), verdict AS (
  SELECT bool_and(count < quota) AS allowed FROM cur
), counted AS (
  INSERT INTO rate_windows (account_id, window_name, window_start, count)
  -- Rows are locked in name order in every statement, so concurrent requests never deadlock.
  SELECT $1, name, start, 1 FROM cur, verdict WHERE verdict.allowed ORDER BY name
  ON CONFLICT (account_id, window_name) DO UPDATE SET
    count = CASE WHEN rate_windows.window_start = EXCLUDED.window_start THEN rate_windows.count + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
  RETURNING window_name, count
)
SELECT cur.name, verdict.allowed, coalesce(counted.count, cur.count) AS count
FROM cur CROSS JOIN verdict LEFT JOIN counted ON counted.window_name = cur.name`;

export class PostgresRateLimiter implements RateLimiter {
  constructor(
    private readonly pool: pg.Pool,
    private readonly quotas: RateLimitQuotas,
  ) {}

  async consume(accountId: string, nowMs = Date.now()): Promise<RateDecision> {
    const nowSeconds = nowMs / 1000;
    const starts = WINDOWS.map(({ seconds }) => Math.floor(nowSeconds / seconds) * seconds);
    const { rows } = await this.pool.query<{ name: string; allowed: boolean; count: number }>(CONSUME, [
      accountId,
      WINDOWS.map((w) => w.name),
      starts,
      WINDOWS.map((w) => this.quotas[w.name]),
    ]);
    const allowed = rows[0]?.allowed ?? true;
    const windows: WindowState[] = WINDOWS.map((w, i) => {
      const count = rows.find((row) => row.name === w.name)?.count ?? 0;
      return {
        name: w.name,
        quota: this.quotas[w.name],
        windowSeconds: w.seconds,
        remaining: Math.max(0, this.quotas[w.name] - count),
        resetSeconds: Math.max(1, Math.ceil(starts[i]! + w.seconds - nowSeconds)),
      };
    });
    const exceeded = allowed ? undefined : windows.find((w) => w.remaining === 0);
    return { allowed, exceeded, windows };
  }
}
