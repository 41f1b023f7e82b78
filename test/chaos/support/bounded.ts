// Loops in the chaos scenarios are bounded twice, by a count and by a clock, so a scenario that
// meets a server that never recovers stops and reports instead of hanging the run.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Bound {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between attempts. */
  stepMs: number;
  /** Give up after this many attempts, whatever the clock says. */
  maxAttempts?: number;
}

/**
 * Repeats `check` until it returns something truthy; throws naming `what` when the bound runs out.
 * A check that throws counts as not yet.
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, bound: Bound): Promise<T> {
  const deadline = Date.now() + bound.timeoutMs;
  const maxAttempts = bound.maxAttempts ?? Math.ceil(bound.timeoutMs / Math.max(1, bound.stepMs)) + 1;
  let lastError = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = `; last error: ${(error as Error).message}`;
    }
    if (Date.now() >= deadline) break;
    await sleep(bound.stepMs);
  }
  throw new Error(`${what}: not reached within ${bound.timeoutMs} ms / ${maxAttempts} attempts${lastError}`);
}

/** A stop flag shared by the loops of one scenario, with a hard deadline no loop outlives. */
export class LoopGuard {
  private stopped = false;
  private readonly hardDeadline: number;

  constructor(maxRunMs: number) {
    this.hardDeadline = Date.now() + maxRunMs;
  }

  get running(): boolean {
    return !this.stopped && Date.now() < this.hardDeadline;
  }

  stop(): void {
    this.stopped = true;
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}
