// Rate-limit windows shared by every replica. The requests of one account that arrive together (in
// one event-loop turn, or while its previous batch is at the database) are counted by one
// statement: it locks the account's windows, admits as many of the requests, in order, as every
// window has room for, and counts them. Locking first makes a batch read what other replicas
// committed last, so replicas together never admit more than a quota. A call that counts as
// several requests (a batch of jobs) is counted by a statement of its own.
import type { Clock } from '../domain/clock.js';
import type pg from 'pg';
import type { RateLimitQuotas } from '../config.js';
import { KeyedTurnBatches } from '../store/postgres/turn-batch.js';
import { WINDOWS, windowStart, type RateDecision, type RateLimiter, type WindowState } from './rate-limiter.js';

const CONSUME = {
  name: 'gantry_rate_consume',
  text: `
WITH locked AS (
  -- Rows are locked in name order in every statement, so concurrent batches never deadlock.
  SELECT window_name, window_start, count FROM rate_windows WHERE account_id = $1 ORDER BY window_name FOR UPDATE
), cur AS (
  SELECT w.name, w.start, w.quota, l.window_name IS NOT NULL AS stored,
         coalesce(CASE WHEN l.window_start = w.start THEN l.count END, 0) AS count
  FROM unnest($2::text[], $3::bigint[], $4::int[]) AS w(name, start, quota)
  LEFT JOIN locked l ON l.window_name = w.name
), verdict AS (
  -- $5 calls, each counting as $6 requests.
  SELECT bool_and(stored) AS stored,
         CASE WHEN bool_and(stored) THEN greatest(0, least($5::int, min(quota - count) / $6::int)) ELSE 0 END AS admitted FROM cur
), counted AS (
  UPDATE rate_windows r SET window_start = cur.start, count = cur.count + verdict.admitted * $6::int
  FROM cur, verdict
  WHERE verdict.stored AND verdict.admitted > 0 AND r.account_id = $1 AND r.window_name = cur.name
)
SELECT cur.name, cur.count, verdict.stored, verdict.admitted FROM cur CROSS JOIN verdict`,
};

/**
 * Locks the account's windows in the order CONSUME does (a CTE runs only where it is read, so the
 * update reads it); a window that has reset since the count ($3) owes nothing back.
 */
const GIVE_BACK = {
  name: 'gantry_rate_give_back',
  text: `
WITH locked AS MATERIALIZED (
  SELECT window_name FROM rate_windows WHERE account_id = $1 ORDER BY window_name FOR UPDATE
)
UPDATE rate_windows r SET count = greatest(0, r.count - $4::int)
FROM locked l JOIN unnest($2::text[], $3::bigint[]) AS w(name, start) ON w.name = l.window_name
WHERE r.account_id = $1 AND r.window_name = l.window_name AND r.window_start = w.start`,
};

/** An account's first request makes its rows, which later batches lock before they count. */
const CREATE_WINDOWS = `INSERT INTO rate_windows (account_id, window_name, window_start, count)
  SELECT $1, name, 0, 0 FROM unnest($2::text[]) AS name ON CONFLICT DO NOTHING`;

interface WindowRow {
  name: string;
  count: number;
  stored: boolean;
  admitted: number;
}

export class PostgresRateLimiter implements RateLimiter {
  private readonly byAccount = new KeyedTurnBatches<number, RateDecision>((accountId, nows) => this.consumeAll(accountId, nows));

  /** `pool`: sessions that keep their plans (the store's batch pool, decision 33). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly quotas: RateLimitQuotas,
    readonly now: Clock = Date.now,
  ) {}

  consume(accountId: string, nowMs = this.now(), requests = 1): Promise<RateDecision> {
    // Every authentication counts one: it joins its account's group without another promise.
    if (requests === 1) return this.byAccount.add(accountId, nowMs);
    return this.consumeAll(accountId, [nowMs], requests).then(([decision]) => decision!);
  }

  async giveBack(accountId: string, countedAtMs: number, requests: number): Promise<void> {
    const starts = WINDOWS.map(({ seconds }) => windowStart(countedAtMs / 1000, seconds));
    await this.pool.query({ ...GIVE_BACK, values: [accountId, WINDOWS.map((w) => w.name), starts, requests] });
  }

  /** Counts calls of `requests` each: all that fit, in order. */
  private async consumeAll(accountId: string, nows: number[], requests = 1): Promise<RateDecision[]> {
    const nowSeconds = Math.max(...nows) / 1000;
    const starts = WINDOWS.map(({ seconds }) => windowStart(nowSeconds, seconds));
    const names = WINDOWS.map((w) => w.name);
    const values = [accountId, names, starts, WINDOWS.map((w) => this.quotas[w.name]), nows.length, requests];
    let { rows } = await this.pool.query<WindowRow>({ ...CONSUME, values });
    if (!rows.every((row) => row.stored)) {
      await this.pool.query(CREATE_WINDOWS, [accountId, names]);
      ({ rows } = await this.pool.query<WindowRow>({ ...CONSUME, values }));
      if (!rows.every((row) => row.stored)) throw new Error(`the rate-limit windows of account ${accountId} could not be stored`);
    }
    const admitted = rows[0]?.admitted ?? 0;
    const counted = WINDOWS.map((w) => rows.find((row) => row.name === w.name)?.count ?? 0);
    return nows.map((_, i) => {
      const allowed = i < admitted;
      const windows: WindowState[] = WINDOWS.map((w, k) => {
        const count = counted[k]! + (allowed ? i + 1 : admitted) * requests;
        return {
          name: w.name,
          quota: this.quotas[w.name],
          windowSeconds: w.seconds,
          remaining: Math.max(0, this.quotas[w.name] - count),
          resetSeconds: Math.max(1, Math.ceil(starts[k]! + w.seconds - nowSeconds)),
        };
      });
      // The window with the least room refused it (the others may still have some).
      const exceeded = allowed ? undefined : windows.reduce((least, w) => (w.remaining < least.remaining ? w : least));
      return { allowed, exceeded, windows };
    });
  }
}
