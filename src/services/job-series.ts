// Per-minute series of an endpoint's jobs, drawn from the jobs the store still holds: queue depth
// and jobs running at each step's end, jobs finished in each step by outcome, and percentiles of
// the queue delay and execution time of the jobs that started or finished in it.
import type { JobTimes } from '../store/job-history.js';

export interface SeriesPoint {
  /** The step's end, epoch ms. */
  t: number;
  queued: number;
  inProgress: number;
  submitted: number;
  completed: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  /** ms; null when no job started in the step. */
  delayP50: number | null;
  delayP90: number | null;
  delayP99: number | null;
  /** ms; null when no job finished after running in the step. */
  executionP50: number | null;
  executionP90: number | null;
  executionP99: number | null;
}

/** The value at or below which `p` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const OUTCOME = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'cancelled', TIMED_OUT: 'timedOut' } as const;

export function jobSeries(jobs: JobTimes[], from: number, to: number, stepMs: number): SeriesPoint[] {
  const steps = Math.max(1, Math.ceil((to - from) / stepMs));
  const stepOf = (t: number) => Math.floor((t - from) / stepMs);
  const delays: number[][] = Array.from({ length: steps }, () => []);
  const executions: number[][] = Array.from({ length: steps }, () => []);
  const points = Array.from({ length: steps }, (_, i) => ({
    t: Math.min(to, from + (i + 1) * stepMs),
    queued: 0,
    inProgress: 0,
    submitted: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    timedOut: 0,
  }));
  for (const job of jobs) {
    const submitted = stepOf(job.submittedAt);
    if (submitted >= 0 && submitted < steps) points[submitted]!.submitted++;
    const started = job.startedAt === null ? -1 : stepOf(job.startedAt);
    if (started >= 0 && started < steps) delays[started]!.push(job.startedAt! - job.submittedAt);
    if (job.completedAt !== null) {
      const finished = stepOf(job.completedAt);
      const outcome = OUTCOME[job.status as keyof typeof OUTCOME];
      if (finished >= 0 && finished < steps && outcome) {
        points[finished]![outcome]++;
        if (job.startedAt !== null) executions[finished]!.push(job.completedAt - job.startedAt);
      }
    }
    // Where the job was at each step's end: queued until it started (or ended), running until it ended.
    for (let i = Math.max(0, submitted); i < steps; i++) {
      const t = points[i]!.t;
      if (job.completedAt !== null && job.completedAt <= t) break;
      if (job.startedAt !== null && job.startedAt <= t) points[i]!.inProgress++;
      else points[i]!.queued++;
    }
  }
  return points.map((point, i) => {
    const d = delays[i]!.sort((a, b) => a - b);
    const e = executions[i]!.sort((a, b) => a - b);
    return {
      ...point,
      delayP50: percentile(d, 0.5),
      delayP90: percentile(d, 0.9),
      delayP99: percentile(d, 0.99),
      executionP50: percentile(e, 0.5),
      executionP90: percentile(e, 0.9),
      executionP99: percentile(e, 0.99),
    };
  });
}
