// An endpoint's workers by state at each step's end, from the leader's samples. A sample stands
// for two sample intervals: with none that recent (the endpoint had no workers, or no leader was
// sampling) the step shows no workers.
import type { WorkerSample, WorkerStateCounts } from '../store/worker-sample-store.js';

const NONE: WorkerStateCounts = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0 };

/** How long before `from` samples are read, so the first step can use one taken just before it. */
export function sampleLookback(sampleEveryMs: number): number {
  return 2 * sampleEveryMs;
}

/** `ends` are the steps' ends, ascending; `samples` oldest first. */
export function workerSeries(samples: readonly WorkerSample[], ends: readonly number[], sampleEveryMs: number): WorkerStateCounts[] {
  const stale = sampleLookback(sampleEveryMs);
  let next = 0;
  let latest: WorkerSample | undefined;
  return ends.map((t) => {
    while (next < samples.length && samples[next]!.at <= t) latest = samples[next++];
    if (!latest || t - latest.at > stale) return { ...NONE };
    const { running, idle, initializing, throttled, unhealthy } = latest;
    return { running, idle, initializing, throttled, unhealthy };
  });
}
