// The arrival trace of the scaling simulator: quiet, a burst, a trickle, quiet again.

export interface TraceShape {
  idleBeforeMs: number;
  burstJobs: number;
  burstMs: number;
  /** Gap between the burst's start and the trickle's first job. */
  trickleAfterBurstMs: number;
  trickleJobs: number;
  trickleEveryMs: number;
  idleAfterMs: number;
}

export const DEFAULT_TRACE: TraceShape = {
  idleBeforeMs: 60_000,
  burstJobs: 500,
  burstMs: 5_000,
  trickleAfterBurstMs: 15_000,
  trickleJobs: 120,
  trickleEveryMs: 1_000,
  idleAfterMs: 120_000,
};

export interface Trace {
  /** Submit times (ms), ascending. */
  arrivals: number[];
  endMs: number;
}

export function buildTrace(shape: TraceShape = DEFAULT_TRACE): Trace {
  const arrivals: number[] = [];
  const burstAt = shape.idleBeforeMs;
  for (let i = 0; i < shape.burstJobs; i++) arrivals.push(burstAt + Math.floor((i * shape.burstMs) / shape.burstJobs));
  const trickleAt = burstAt + shape.trickleAfterBurstMs;
  for (let i = 0; i < shape.trickleJobs; i++) arrivals.push(trickleAt + i * shape.trickleEveryMs);
  arrivals.sort((a, b) => a - b);
  return { arrivals, endMs: trickleAt + shape.trickleJobs * shape.trickleEveryMs + shape.idleAfterMs };
}

export function describeTrace(shape: TraceShape = DEFAULT_TRACE): string {
  const s = (ms: number) => `${ms / 1000} s`;
  return (
    `${s(shape.idleBeforeMs)} idle, ${shape.burstJobs} jobs within ${s(shape.burstMs)}, ` +
    `then 1 job every ${s(shape.trickleEveryMs)} for ${s(shape.trickleJobs * shape.trickleEveryMs)}, then ${s(shape.idleAfterMs)} idle`
  );
}
