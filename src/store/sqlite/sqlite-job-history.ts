// An endpoint's recent jobs on SQLite (see job-history.ts). A list or a series can read the whole
// history, so both run on the history reader, off the event loop.
import type Database from 'better-sqlite3';
import { jobStateFromRow, type JobStateRow } from '../rows.js';
import type { HistoryReader, RowReducer } from './history-reader.js';
import { seriesOfRows } from '../shared/job-series.js';
import { JOB_STATUSES, type JobStatus } from '../../domain/job-state.js';
import { generationOf, purgedRow } from '../shared/queue-generation-sql.js';
import { JOB_STATE_COLUMNS_SQL } from './job-columns.js';
import { FINISHED_JOB_SQL } from './sqlite-job-statements.js';
import {
  JOB_WINDOW_CAP,
  type JobHistoryStore,
  type JobListQuery,
  type JobPage,
  type JobSeriesPoint,
  type SeriesSpan,
} from '../job-history.js';

/** What a list shows of a job: its state (no input), and its place for the next page. */
const LISTED = `seq, ${JOB_STATE_COLUMNS_SQL}`;

/** The end of every list statement: the page before the cursor, newest first. */
const PAGE = 'seq < ? ORDER BY seq DESC LIMIT ?';

const LIST_ALL = `SELECT ${LISTED} FROM jobs WHERE endpoint_id = ? AND NOT ${purgedRow()} AND ${PAGE}`;

/**
 * The statements that list the jobs of one status newest first, each through the index that holds
 * only that status's jobs, so a page of a rare status reads as few rows as one of a common status
 * (a filter on the list of all jobs read every job the endpoint retains when none matched).
 * - Queued jobs of the current generation: two statements, one per priority, as `jobs_queue`
 *   orders them.
 * - Running jobs: the endpoint's entries of `jobs_running`, few, sorted.
 * - A finished status: `jobs_finished`, in seq order.
 */
function listStatements(status: JobStatus): string[] {
  if (status === 'IN_QUEUE') {
    return [0, 1].map(
      (lowPriority) => `SELECT ${LISTED} FROM jobs INDEXED BY jobs_queue WHERE endpoint_id = ? AND queue_generation = ${generationOf('?')}
        AND low_priority = ${lowPriority} AND status = 'IN_QUEUE' AND ${PAGE}`,
    );
  }
  if (status === 'IN_PROGRESS') {
    return [`SELECT ${LISTED} FROM jobs INDEXED BY jobs_running WHERE endpoint_id = ? AND status = 'IN_PROGRESS' AND ${PAGE}`];
  }
  return [
    `SELECT ${LISTED} FROM jobs INDEXED BY jobs_finished WHERE endpoint_id = ? AND status = '${status}' AND ${FINISHED_JOB_SQL} AND ${PAGE}`,
  ];
}

const LIST_BY_STATUS = new Map(JOB_STATUSES.map((status) => [status, listStatements(status)]));

function listOf(status: JobStatus): string[] {
  const statements = LIST_BY_STATUS.get(status);
  if (!statements) throw new Error(`no such job status: ${status}`);
  return statements;
}

/** What the history reader's thread makes of rows for this module (see HistoryReader's reducers). */
export const JOB_HISTORY_REDUCERS = { series: seriesOfRows } satisfies Record<string, RowReducer>;

/** The jobs a series counts, on the history reader's thread. */
const WINDOW = `SELECT status, submitted_at, started_at, completed_at FROM jobs
  WHERE endpoint_id = ? AND (submitted_at >= ? OR completed_at >= ? OR completed_at IS NULL) AND NOT ${purgedRow()}
  ORDER BY seq DESC LIMIT ?`;

export class SqliteJobHistory implements JobHistoryStore {
  constructor(
    private readonly db: Database.Database,
    private readonly history: HistoryReader,
  ) {}

  async list(endpointId: string, query: JobListQuery): Promise<JobPage> {
    const before = query.before ?? Number.MAX_SAFE_INTEGER;
    const take = query.limit + 1;
    const statements =
      query.statuses.length === 0
        ? [{ sql: LIST_ALL, params: [endpointId, before, take] }]
        : [...new Set(query.statuses)].flatMap((status) =>
            listOf(status).map((sql) => ({
              sql,
              params: status === 'IN_QUEUE' ? [endpointId, endpointId, before, take] : [endpointId, before, take],
            })),
          );
    // Each statement's rows come newest first; their merge is the page.
    const rows = ((await this.history.read(statements)) as (JobStateRow & { seq: number })[][])
      .flat()
      .sort((a, b) => b.seq - a.seq)
      .slice(0, take);
    const page = rows.slice(0, query.limit);
    return { jobs: page.map(jobStateFromRow), next: rows.length > query.limit ? page[page.length - 1]!.seq : null };
  }

  async chunks(jobId: string, limit: number): Promise<string[]> {
    const rows = this.db.prepare('SELECT output FROM job_stream WHERE job_id = ? ORDER BY seq LIMIT ?').all(jobId, limit) as {
      output: string;
    }[];
    return rows.map((r) => r.output);
  }

  async series(endpointId: string, span: SeriesSpan): Promise<JobSeriesPoint[]> {
    const window = {
      sql: WINDOW,
      params: [endpointId, span.from, span.from, JOB_WINDOW_CAP],
      reduce: { name: 'series' satisfies keyof typeof JOB_HISTORY_REDUCERS, arg: span },
    };
    const [points] = (await this.history.read([window])) as [JobSeriesPoint[]];
    return points;
  }
}
