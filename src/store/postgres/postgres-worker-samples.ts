// Worker samples on PostgreSQL: one multi-row insert per pass.
import type pg from 'pg';
import {
  WORKER_SAMPLE_COLUMNS,
  workerSampleFromRow,
  workerSampleValues,
  type WorkerSample,
  type WorkerSampleRow,
  type WorkerSampleStore,
} from '../worker-sample-store.js';

const WIDTH = 7;
/** Rows per insert, well under PostgreSQL's 65535 parameters. */
const CHUNK = 1000;

export class PostgresWorkerSampleStore implements WorkerSampleStore {
  constructor(private readonly pool: pg.Pool) {}

  async append(samples: readonly WorkerSample[]): Promise<number> {
    let recorded = 0;
    for (let start = 0; start < samples.length; start += CHUNK) {
      const chunk = samples.slice(start, start + CHUNK);
      const rows = chunk.map((_, i) => `(${Array.from({ length: WIDTH }, (__, j) => `$${i * WIDTH + j + 1}`).join(', ')})`);
      const result = await this.pool.query(
        `INSERT INTO worker_samples (${WORKER_SAMPLE_COLUMNS}) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
        chunk.flatMap(workerSampleValues),
      );
      recorded += result.rowCount ?? 0;
    }
    return recorded;
  }

  async list(endpointId: string, fromMs: number, toMs: number): Promise<WorkerSample[]> {
    const { rows } = await this.pool.query<WorkerSampleRow>(
      `SELECT ${WORKER_SAMPLE_COLUMNS} FROM worker_samples WHERE endpoint_id = $1 AND at_ms >= $2 AND at_ms <= $3 ORDER BY at_ms`,
      [endpointId, fromMs, toMs],
    );
    return rows.map(workerSampleFromRow);
  }

  async prune(beforeMs: number): Promise<number> {
    return (await this.pool.query('DELETE FROM worker_samples WHERE at_ms < $1', [beforeMs])).rowCount ?? 0;
  }
}
