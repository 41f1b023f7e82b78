// Per-account request quotas in fixed minute, hour and day windows aligned to UTC boundaries.
// The embedded default keeps counters in memory (one process serves the deployment);
// a shared implementation of the same interface serves several replicas.
import type { RateLimitQuotas } from '../config.js';
import type { Clock } from '../domain/clock.js';

export type WindowName = 'minute' | 'hour' | 'day';
export const WINDOWS: { name: WindowName; seconds: number }[] = [
  { name: 'minute', seconds: 60 },
  { name: 'hour', seconds: 3600 },
  { name: 'day', seconds: 86400 },
];

export interface WindowState {
  name: WindowName;
  quota: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until this window resets. */
  resetSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The window that refused the request, when it was refused. */
  exceeded: WindowState | undefined;
  windows: WindowState[];
}

export interface RateLimiter {
  /** The clock the windows are kept by: a caller that notes when it counted reads this one. */
  readonly now: Clock;
  /**
   * Counts `requests` (one unless a call counts as several, as a batch of jobs does) in every
   * window, or none of them when a window has no room for them all.
   */
  consume(accountId: string, nowMs?: number, requests?: number): Promise<RateDecision>;
  /**
   * Takes back `requests` counted at `countedAtMs` from every window that has not reset since: a
   * call counted before it turned out to stand for fewer requests (a keyed batch another copy of it
   * queued first, decision 41).
   */
  giveBack(accountId: string, countedAtMs: number, requests: number): Promise<void>;
}

/** The start (s) of the window of `seconds` that holds `atSeconds`. */
export function windowStart(atSeconds: number, seconds: number): number {
  return Math.floor(atSeconds / seconds) * seconds;
}

export class MemoryRateLimiter implements RateLimiter {
  /** accountId -> window name -> [window start (s), count] */
  private readonly counters = new Map<string, Map<WindowName, [number, number]>>();

  constructor(
    private readonly quotas: RateLimitQuotas,
    readonly now: Clock = Date.now,
  ) {}

  async consume(accountId: string, nowMs = this.now(), requests = 1): Promise<RateDecision> {
    const nowSeconds = nowMs / 1000;
    let perWindow = this.counters.get(accountId);
    if (!perWindow) {
      perWindow = new Map();
      this.counters.set(accountId, perWindow);
    }
    const current = WINDOWS.map(({ name, seconds }) => {
      const start = windowStart(nowSeconds, seconds);
      const entry = perWindow.get(name);
      const count = entry && entry[0] === start ? entry[1] : 0;
      return { name, seconds, start, count, quota: this.quotas[name] };
    });
    const refusing = current.find((w) => w.count + requests > w.quota);
    const windows: WindowState[] = current.map((w) => {
      const count = refusing ? w.count : w.count + requests;
      if (!refusing) perWindow.set(w.name, [w.start, count]);
      return {
        name: w.name,
        quota: w.quota,
        windowSeconds: w.seconds,
        remaining: Math.max(0, w.quota - count),
        resetSeconds: Math.max(1, Math.ceil(w.start + w.seconds - nowSeconds)),
      };
    });
    const exceeded = refusing ? windows.find((w) => w.name === refusing.name) : undefined;
    return { allowed: !refusing, exceeded, windows };
  }

  async giveBack(accountId: string, countedAtMs: number, requests: number): Promise<void> {
    const perWindow = this.counters.get(accountId);
    for (const { name, seconds } of WINDOWS) {
      const entry = perWindow?.get(name);
      if (entry && entry[0] === windowStart(countedAtMs / 1000, seconds)) entry[1] = Math.max(0, entry[1] - requests);
    }
  }
}
