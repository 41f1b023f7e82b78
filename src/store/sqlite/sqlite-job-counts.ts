// The health counts of an endpoint on SQLite. They read every job the endpoint retains, so they
// run on the history reader, off the event loop (decision 30); the three statements share one
// snapshot, so the figures agree with each other.
import type { JobStatus } from '../../domain/job-state.js';
import type { JobCounts } from '../job-store.js';
import { countsFromRows } from '../shared/job-results.js';
import { FINISHED_JOB_SQL } from './sqlite-job-statements.js';
import { generationOf, purgedRow } from '../shared/queue-generation-sql.js';
import type { HistoryReader } from './history-reader.js';

const GENERATION = generationOf('?');
// Finished jobs through jobs_finished; running ones through jobs_running, the jobs workers hold
// now, by endpoint.
const COUNT_TAKEN = `SELECT status, count(*) AS n FROM jobs INDEXED BY jobs_finished WHERE endpoint_id = ? AND ${FINISHED_JOB_SQL}
  GROUP BY status
  UNION ALL
  SELECT 'IN_PROGRESS' AS status, count(*) AS n FROM jobs INDEXED BY jobs_running WHERE endpoint_id = ? AND status = 'IN_PROGRESS'`;
const COUNT_QUEUED = `SELECT 'IN_QUEUE' AS status, count(*) AS n FROM jobs
  WHERE endpoint_id = ? AND queue_generation = ${GENERATION} AND status = 'IN_QUEUE'`;
const COUNT_RETRIED = `SELECT count(*) AS n FROM jobs WHERE endpoint_id = ? AND retries > 0 AND NOT ${purgedRow(GENERATION)}`;

type StatusCount = { status: JobStatus; n: number };

export async function countJobs(history: HistoryReader, endpointId: string): Promise<JobCounts> {
  const [taken, queued, retried] = (await history.read([
    { sql: COUNT_TAKEN, params: [endpointId, endpointId] },
    { sql: COUNT_QUEUED, params: [endpointId, endpointId] },
    { sql: COUNT_RETRIED, params: [endpointId, endpointId] },
  ])) as [StatusCount[], StatusCount[], { n: number }[]];
  return countsFromRows([...taken, ...queued], retried[0]!.n);
}
