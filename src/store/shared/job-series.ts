// An endpoint's job series (the console's charts) counted from the jobs of its window, where they
// are read: on SQLite's history reader thread (decision 31), so that only the points reach the
// event loop. PostgreSQL counts in SQL instead (postgres-job-series.ts) and starts from the empty
// series given here. Both are held to the same model by the store conformance tests.
import type { JobSeriesPoint, SeriesSpan } from '../job-history.js';

/** A job of a window: status, submitted, started and finished at (epoch ms; null when not yet). */
export type WindowRow = [status: string, submittedAt: number, startedAt: number | null, completedAt: number | null];

/**
 * The series of `span` from a window's jobs. A step covers [from + i step, from + (i + 1) step)
 * and ends at min(to, from + (i + 1) step); a job counts as submitted, started (its queue delay)
 * and finished (its outcome and execution time) in the steps those times fall in, and at each
 * step's end as queued or running from its submission's step until it finished. Percentiles are
 * of nearest rank. The history reader's thread runs this from its source text, so it uses nothing
 * from outside itself.
 */
export function seriesOfRows(rows: readonly WindowRow[], { from, to, stepMs }: SeriesSpan): JobSeriesPoint[] {
  const outcomes: Record<string, 'completed' | 'failed' | 'cancelled' | 'timedOut'> = {
    COMPLETED: 'completed',
    FAILED: 'failed',
    CANCELLED: 'cancelled',
    TIMED_OUT: 'timedOut',
  };
  const steps = Math.max(1, Math.ceil((to - from) / stepMs));
  const stepOf = (time: number) => Math.floor((time - from) / stepMs);
  const delays: number[][] = Array.from({ length: steps }, () => []);
  const executions: number[][] = Array.from({ length: steps }, () => []);
  const points: JobSeriesPoint[] = Array.from({ length: steps }, (_, i) => ({
    ...{ t: Math.min(to, from + (i + 1) * stepMs), queued: 0, inProgress: 0, submitted: 0 },
    ...{ completed: 0, failed: 0, cancelled: 0, timedOut: 0, delayP50: null, delayP90: null, delayP99: null },
    ...{ executionP50: null, executionP90: null, executionP99: null },
  }));
  for (const [status, submittedAt, startedAt, completedAt] of rows) {
    const submitted = stepOf(submittedAt);
    if (submitted >= 0 && submitted < steps) points[submitted]!.submitted++;
    const started = startedAt === null ? -1 : stepOf(startedAt);
    if (started >= 0 && started < steps) delays[started]!.push(startedAt! - submittedAt);
    const outcome = outcomes[status];
    if (completedAt !== null && outcome) {
      const finished = stepOf(completedAt);
      if (finished >= 0 && finished < steps) {
        points[finished]![outcome]++;
        if (startedAt !== null) executions[finished]!.push(completedAt - startedAt);
      }
    }
    for (let i = Math.max(0, submitted); i < steps; i++) {
      const end = points[i]!.t;
      if (completedAt !== null && completedAt <= end) break;
      if (startedAt !== null && startedAt <= end) points[i]!.inProgress++;
      else points[i]!.queued++;
    }
  }
  const rank = (sorted: Float64Array, p: number) => (sorted.length === 0 ? null : sorted[Math.ceil((p * sorted.length) / 100) - 1]!);
  for (let i = 0; i < steps; i++) {
    // A typed array sorts numbers natively: two to three times faster than with a comparator.
    const d = Float64Array.from(delays[i]!).sort();
    const e = Float64Array.from(executions[i]!).sort();
    Object.assign(points[i]!, { delayP50: rank(d, 50), delayP90: rank(d, 90), delayP99: rank(d, 99) });
    Object.assign(points[i]!, { executionP50: rank(e, 50), executionP90: rank(e, 90), executionP99: rank(e, 99) });
  }
  return points;
}
