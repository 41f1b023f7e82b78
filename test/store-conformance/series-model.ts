// A series counted the plain way, job by job at every step, to hold a store's series against.
import type { JobSeriesPoint, SeriesSpan } from '../../src/store/job-history.js';

export const OUTCOMES = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;

export interface ModelJob {
  status: 'IN_QUEUE' | 'IN_PROGRESS' | (typeof OUTCOMES)[number];
  submittedAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

/** The value of nearest rank p% among `values`, or null when there are none. */
function nearestRank(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p * sorted.length) / 100) - 1]!;
}

export function modelSeries(jobs: readonly ModelJob[], { from, to, stepMs }: SeriesSpan): JobSeriesPoint[] {
  const points: JobSeriesPoint[] = [];
  for (let start = from; start < to; start += stepMs) {
    const next = start + stepMs;
    const end = Math.min(to, next);
    const inStep = (time: number | null): time is number => time !== null && time >= start && time < next;
    const there = jobs.filter((j) => j.submittedAt < next && (j.completedAt === null || j.completedAt > end));
    const finished = (status: string) => jobs.filter((j) => inStep(j.completedAt) && j.status === status).length;
    const delays = jobs.filter((j) => inStep(j.startedAt)).map((j) => j.startedAt! - j.submittedAt);
    const executions = jobs
      .filter((j) => inStep(j.completedAt) && j.startedAt !== null && (OUTCOMES as readonly string[]).includes(j.status))
      .map((j) => j.completedAt! - j.startedAt!);
    points.push({
      t: end,
      queued: there.filter((j) => j.startedAt === null || j.startedAt > end).length,
      inProgress: there.filter((j) => j.startedAt !== null && j.startedAt <= end).length,
      submitted: jobs.filter((j) => inStep(j.submittedAt)).length,
      completed: finished('COMPLETED'),
      failed: finished('FAILED'),
      cancelled: finished('CANCELLED'),
      timedOut: finished('TIMED_OUT'),
      delayP50: nearestRank(delays, 50),
      delayP90: nearestRank(delays, 90),
      delayP99: nearestRank(delays, 99),
      executionP50: nearestRank(executions, 50),
      executionP90: nearestRank(executions, 90),
      executionP99: nearestRank(executions, 99),
    });
  }
  return points;
}
