// Pods on PostgreSQL.
import type pg from 'pg';
import type { PodHolding, PodRecord, PodStore } from '../pod-store.js';
import { HOLDING_STATUS_LIST, holdingFromRecord, POD_COLUMNS, podFromRow, podValues, type PodRow } from '../shared/pod-rows.js';

export class PostgresPodStore implements PodStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(pod: PodRecord): Promise<void> {
    await this.pool.query(`INSERT INTO pods (${POD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, podValues(pod));
  }

  async get(accountId: string, id: string): Promise<PodRecord | undefined> {
    const row = (await this.pool.query<PodRow>('SELECT * FROM pods WHERE id = $1 AND account_id = $2', [id, accountId])).rows[0];
    return row && podFromRow(row);
  }

  async list(accountId: string): Promise<PodRecord[]> {
    return (await this.pool.query<PodRow>('SELECT * FROM pods WHERE account_id = $1 ORDER BY created_at, id', [accountId])).rows.map(
      podFromRow,
    );
  }

  async listAll(): Promise<PodRecord[]> {
    return (await this.pool.query<PodRow>('SELECT * FROM pods ORDER BY created_at, id')).rows.map(podFromRow);
  }

  async update(pod: PodRecord, expectedRevision: number): Promise<boolean> {
    const [, , spec, status, placement, message, revision, , updatedAt, lastStartedAt, lastStatusChange] = podValues(pod);
    const result = await this.pool.query(
      `UPDATE pods SET spec = $1, status = $2, placement = $3, message = $4, revision = $5, updated_at = $6, last_started_at = $7,
       last_status_change = $8 WHERE id = $9 AND account_id = $10 AND revision = $11`,
      [spec, status, placement, message, revision, updatedAt, lastStartedAt, lastStatusChange, pod.id, pod.accountId, expectedRevision],
    );
    return result.rowCount === 1;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM pods WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount === 1;
  }

  async holdingResources(): Promise<PodHolding[]> {
    const rows = (
      await this.pool.query<PodRow>(
        `SELECT * FROM pods WHERE status IN ${HOLDING_STATUS_LIST} AND placement IS NOT NULL ORDER BY created_at, id`,
      )
    ).rows;
    return rows.map(podFromRow).flatMap((pod) => holdingFromRecord(pod) ?? []);
  }
}
