// An endpoint's recent jobs on PostgreSQL (see job-history.ts).
import type pg from 'pg';
import type { JobHistoryStore, JobListQuery, JobPage, JobSeriesPoint, SeriesSpan } from '../job-history.js';
import { jobStateFromRow, type JobStateRow } from '../rows.js';
import { jobStateColumns } from '../shared/job-sql.js';
import { purgedRow } from '../shared/queue-generation-sql.js';
import { postgresJobSeries } from './postgres-job-series.js';

export class PostgresJobHistory implements JobHistoryStore {
  constructor(private readonly pool: pg.Pool) {}

  async list(endpointId: string, query: JobListQuery): Promise<JobPage> {
    const params: unknown[] = [endpointId, query.before ?? Number.MAX_SAFE_INTEGER, query.limit + 1];
    let statusFilter = '';
    if (query.statuses.length > 0) {
      statusFilter = ' AND status = ANY($4::text[])';
      params.push(query.statuses);
    }
    const { rows } = await this.pool.query<JobStateRow & { seq: string | number }>(
      `SELECT seq, ${jobStateColumns()} FROM jobs WHERE endpoint_id = $1 AND seq < $2${statusFilter} AND NOT ${purgedRow()} ORDER BY seq DESC LIMIT $3`,
      params,
    );
    const page = rows.slice(0, query.limit);
    return { jobs: page.map(jobStateFromRow), next: rows.length > query.limit ? Number(page[page.length - 1]!.seq) : null };
  }

  async chunks(jobId: string, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ output: string }>('SELECT output FROM job_stream WHERE job_id = $1 ORDER BY seq LIMIT $2', [
      jobId,
      limit,
    ]);
    return rows.map((r) => r.output);
  }

  series(endpointId: string, span: SeriesSpan): Promise<JobSeriesPoint[]> {
    return postgresJobSeries(this.pool, endpointId, span);
  }
}
