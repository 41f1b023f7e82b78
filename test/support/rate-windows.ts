// The rate limiter's windows start on the minute, hour and day (of the epoch). A test that counts
// several requests in one window first waits out a window about to end, so that none of its
// requests falls into the next one.
import assert from 'node:assert/strict';
import type { RateDecision, RateLimiter } from '../../src/cluster/rate-limiter.js';

/** Resolves at once, or after the current window of `windowSeconds` ends if fewer than `marginSeconds` of it are left. */
export async function clearOfWindowEnd(windowSeconds: number, marginSeconds: number): Promise<void> {
  const left = windowSeconds - ((Date.now() / 1000) % windowSeconds);
  if (left < marginSeconds) await new Promise((resolve) => setTimeout(resolve, (left + 0.2) * 1000));
}

/**
 * What a limiter with quotas { minute: 10, hour: 1000, day: 1000 } gives back: requests counted in
 * a window still open come back; a window that has reset since owes nothing, the others still do.
 */
export async function assertGivesBack(limiter: RateLimiter, accountId: string): Promise<void> {
  const left = (decision: RateDecision) => Object.fromEntries(decision.windows.map((w) => [w.name, w.remaining]));
  const t0 = Date.UTC(2026, 0, 1, 10, 59, 50);
  assert.equal((await limiter.consume(accountId, t0, 7)).allowed, true);
  await limiter.giveBack(accountId, t0, 5);
  assert.deepEqual(left(await limiter.consume(accountId, t0 + 1000)), { minute: 7, hour: 997, day: 997 });
  // In the next minute, hour and (not) day: only the day window still holds what was counted at t0.
  const t1 = t0 + 15_000;
  assert.equal((await limiter.consume(accountId, t1, 3)).allowed, true);
  await limiter.giveBack(accountId, t0, 2);
  assert.deepEqual(left(await limiter.consume(accountId, t1)), { minute: 6, hour: 996, day: 995 });
  // Never below nothing: a count given back twice leaves the window empty, not in credit.
  await limiter.giveBack(accountId, t1, 50);
  assert.deepEqual(left(await limiter.consume(accountId, t1)), { minute: 9, hour: 999, day: 999 });
}
