// Submit keys on PostgreSQL. `insert` runs in the transaction of the jobs it names (the job
// store's insertAll); a key already there fails it with a uniqueness violation, also when another
// replica wrote it a moment before.
import type pg from 'pg';
import type { Queryable } from './database.js';
import {
  SUBMIT_KEY_COLUMNS,
  submitKeyFromRow,
  submitKeyValues,
  type SubmitKeyRecord,
  type SubmitKeyRow,
  type SubmitKeyStore,
} from '../submit-key-store.js';

export class PostgresSubmitKeys implements SubmitKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(on: Queryable, record: SubmitKeyRecord): Promise<void> {
    await on.query(`INSERT INTO submit_keys (${SUBMIT_KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, submitKeyValues(record));
  }

  async find(endpointId: string, key: string): Promise<SubmitKeyRecord | undefined> {
    const { rows } = await this.pool.query<SubmitKeyRow>(
      `SELECT ${SUBMIT_KEY_COLUMNS} FROM submit_keys WHERE endpoint_id = $1 AND idempotency_key = $2`,
      [endpointId, key],
    );
    return rows[0] && submitKeyFromRow(rows[0]);
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM submit_keys WHERE ctid IN (SELECT ctid FROM submit_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [now, limit],
    );
    return rowCount ?? 0;
  }
}
