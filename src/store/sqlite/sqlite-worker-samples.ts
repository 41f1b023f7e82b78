// Worker samples on SQLite.
import type Database from 'better-sqlite3';
import {
  WORKER_SAMPLE_COLUMNS,
  workerSampleFromRow,
  workerSampleValues,
  type WorkerSample,
  type WorkerSampleRow,
  type WorkerSampleStore,
} from '../worker-sample-store.js';

export class SqliteWorkerSampleStore implements WorkerSampleStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async append(samples: readonly WorkerSample[]): Promise<number> {
    const write = this.db.transaction(() => {
      let recorded = 0;
      for (const sample of samples) recorded += this.statements.insert.run(...workerSampleValues(sample)).changes;
      return recorded;
    });
    return write.immediate();
  }

  async list(endpointId: string, fromMs: number, toMs: number): Promise<WorkerSample[]> {
    return (this.statements.list.all(endpointId, fromMs, toMs) as WorkerSampleRow[]).map(workerSampleFromRow);
  }

  async prune(beforeMs: number): Promise<number> {
    return this.statements.prune.run(beforeMs).changes;
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare(`INSERT INTO worker_samples (${WORKER_SAMPLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
    list: db.prepare(
      `SELECT ${WORKER_SAMPLE_COLUMNS} FROM worker_samples WHERE endpoint_id = ? AND at_ms >= ? AND at_ms <= ? ORDER BY at_ms`,
    ),
    prune: db.prepare('DELETE FROM worker_samples WHERE at_ms < ?'),
  };
}
