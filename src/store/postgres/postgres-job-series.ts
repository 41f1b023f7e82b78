// An endpoint's job series on PostgreSQL, counted by the database (decision 31): a window's
// 50,000 rows, parsed by the driver on the event loop, held every other request for tens of
// milliseconds; a few rows per step come back instead. The rules are those of seriesOfRows
// (shared/job-series.ts), which the conformance tests hold both to.
import type pg from 'pg';
import { JOB_WINDOW_CAP, type JobSeriesPoint, type SeriesSpan } from '../job-history.js';
import { seriesOfRows } from '../shared/job-series.js';
import { purgedRow } from '../shared/queue-generation-sql.js';

const [FROM, TO, STEP, STEPS] = ['$2::bigint', '$3::bigint', '$4::bigint', '$5::bigint'];
const OUTCOMES = `('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT')`;

/** The step a time at `from` or later falls in. */
const stepOf = (time: string) => `(${time} - ${FROM}) / ${STEP}`;
/** The first step whose end is at or after `time`, or the number of steps when none is. */
const firstEndingBy = (time: string) =>
  `CASE WHEN ${time} IS NULL OR ${time} > ${TO} THEN ${STEPS} WHEN ${time} <= ${FROM} THEN 0 ELSE (${time} - ${FROM} + ${STEP} - 1) / ${STEP} - 1 END`;

/**
 * Rows of (kind, step, n, p50, p90, p99): jobs submitted, and finished by outcome, per step; the
 * queue delay and execution-time samples of a step, counted, with their percentiles (percentile_disc
 * is of nearest rank); and where each job's span of steps queued, and running, begins (+n) and
 * ends (-n), so that the rows are a few per step however many jobs the window holds.
 */
const SERIES = `WITH w AS MATERIALIZED (
    SELECT status, submitted_at AS s, started_at AS st, completed_at AS c FROM jobs
    WHERE endpoint_id = $1 AND (submitted_at >= ${FROM} OR completed_at >= ${FROM} OR completed_at IS NULL) AND NOT ${purgedRow()}
    ORDER BY seq DESC LIMIT $6
  ),
  present AS MATERIALIZED (
    SELECT * FROM (
      SELECT CASE WHEN s < ${FROM} THEN 0 ELSE ${stepOf('s')} END AS a, ${firstEndingBy('st')} AS p, ${firstEndingBy('c')} AS b FROM w
    ) spans WHERE a < b
  ),
  samples AS (
    SELECT 'delay' AS kind, ${stepOf('st')} AS step, st - s AS v FROM w WHERE st >= ${FROM}
    UNION ALL
    SELECT 'execution', ${stepOf('c')}, c - st FROM w WHERE c >= ${FROM} AND st IS NOT NULL AND status IN ${OUTCOMES}
  ),
  tallies (kind, step, n) AS (
    SELECT 'submitted', ${stepOf('s')}, COUNT(*) FROM w WHERE s >= ${FROM} GROUP BY 2
    UNION ALL SELECT status, ${stepOf('c')}, COUNT(*) FROM w WHERE c >= ${FROM} AND status IN ${OUTCOMES} GROUP BY 1, 2
    UNION ALL SELECT 'queued', a, COUNT(*) FROM present WHERE a < p GROUP BY 2
    UNION ALL SELECT 'queued', LEAST(p, b), -COUNT(*) FROM present WHERE a < p GROUP BY 2
    UNION ALL SELECT 'inProgress', GREATEST(a, p), COUNT(*) FROM present WHERE p < b GROUP BY 2
    UNION ALL SELECT 'inProgress', b, -COUNT(*) FROM present WHERE p < b GROUP BY 2
  )
  SELECT kind, step, COUNT(*) AS n, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) AS p50,
    percentile_disc(0.9) WITHIN GROUP (ORDER BY v) AS p90, percentile_disc(0.99) WITHIN GROUP (ORDER BY v) AS p99
  FROM samples GROUP BY kind, step
  UNION ALL SELECT kind, step, n, NULL, NULL, NULL FROM tallies`;

interface Tally {
  kind: string;
  step: number;
  n: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

const OUTCOME_FIELDS: Record<string, 'completed' | 'failed' | 'cancelled' | 'timedOut'> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timedOut',
};

export async function postgresJobSeries(pool: pg.Pool, endpointId: string, span: SeriesSpan): Promise<JobSeriesPoint[]> {
  const points = seriesOfRows([], span); // every step, nothing counted yet
  const { rows } = await pool.query<Tally>(SERIES, [endpointId, span.from, span.to, span.stepMs, points.length, JOB_WINDOW_CAP]);
  // Where spans begin (+) and end (-), per step; summed from the first step on below.
  const changes = { queued: new Array<number>(points.length).fill(0), inProgress: new Array<number>(points.length).fill(0) };
  for (const { kind, step, n, p50, p90, p99 } of rows) {
    // A time past `to` (a job that moved after `to` was read), or a span ending after the last step.
    if (step >= points.length) continue;
    const point = points[step]!;
    if (kind === 'queued' || kind === 'inProgress') changes[kind][step]! += n;
    else if (kind === 'submitted') point.submitted = n;
    else if (kind === 'delay') Object.assign(point, { delayP50: p50, delayP90: p90, delayP99: p99 });
    else if (kind === 'execution') Object.assign(point, { executionP50: p50, executionP90: p90, executionP99: p99 });
    else point[OUTCOME_FIELDS[kind]!] = n;
  }
  for (let i = 0, queued = 0, inProgress = 0; i < points.length; i++) {
    points[i]!.queued = queued += changes.queued[i]!;
    points[i]!.inProgress = inProgress += changes.inProgress[i]!;
  }
  return points;
}
