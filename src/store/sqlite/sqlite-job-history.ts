// An endpoint's recent jobs on SQLite (see job-history.ts).
import type Database from 'better-sqlite3';
import {
  JOB_WINDOW_CAP,
  timesFromRow,
  type JobHistoryStore,
  type JobListQuery,
  type JobPage,
  type JobTimes,
  type JobTimesRow,
} from '../job-history.js';
import { jobFromRow, type JobRow } from '../rows.js';

export class SqliteJobHistory implements JobHistoryStore {
  constructor(private readonly db: Database.Database) {}

  async list(endpointId: string, query: JobListQuery): Promise<JobPage> {
    const params: unknown[] = [endpointId, query.before ?? Number.MAX_SAFE_INTEGER];
    let statusFilter = '';
    if (query.statuses.length > 0) {
      statusFilter = ` AND status IN (${query.statuses.map(() => '?').join(', ')})`;
      params.push(...query.statuses);
    }
    params.push(query.limit + 1);
    const rows = this.db
      .prepare(`SELECT * FROM jobs WHERE endpoint_id = ? AND seq < ?${statusFilter} ORDER BY seq DESC LIMIT ?`)
      .all(...params) as (JobRow & { seq: number })[];
    const page = rows.slice(0, query.limit);
    return { jobs: page.map(jobFromRow), next: rows.length > query.limit ? page[page.length - 1]!.seq : null };
  }

  async chunks(jobId: string, limit: number): Promise<string[]> {
    const rows = this.db.prepare('SELECT output FROM job_stream WHERE job_id = ? ORDER BY seq LIMIT ?').all(jobId, limit) as {
      output: string;
    }[];
    return rows.map((r) => r.output);
  }

  async window(endpointId: string, since: number): Promise<JobTimes[]> {
    const rows = this.db
      .prepare(
        `SELECT status, submitted_at, started_at, completed_at FROM jobs
         WHERE endpoint_id = ? AND (submitted_at >= ? OR completed_at >= ? OR completed_at IS NULL)
         ORDER BY seq DESC LIMIT ?`,
      )
      .all(endpointId, since, since, JOB_WINDOW_CAP) as JobTimesRow[];
    return rows.map(timesFromRow);
  }
}
