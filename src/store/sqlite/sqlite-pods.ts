// Pods on SQLite.
import type Database from 'better-sqlite3';
import type { PodHolding, PodRecord, PodStore } from '../pod-store.js';
import { HOLDING_STATUS_LIST, holdingFromRecord, POD_COLUMNS, podFromRow, podValues, type PodRow } from '../shared/pod-rows.js';

export class SqlitePodStore implements PodStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async insert(pod: PodRecord): Promise<void> {
    this.statements.insert.run(...podValues(pod));
  }

  async get(accountId: string, id: string): Promise<PodRecord | undefined> {
    const row = this.statements.get.get(id, accountId) as PodRow | undefined;
    return row && podFromRow(row);
  }

  async list(accountId: string): Promise<PodRecord[]> {
    return (this.statements.list.all(accountId) as PodRow[]).map(podFromRow);
  }

  async listAll(): Promise<PodRecord[]> {
    return (this.statements.listAll.all() as PodRow[]).map(podFromRow);
  }

  async update(pod: PodRecord, expectedRevision: number): Promise<boolean> {
    const [, , spec, status, placement, message, revision, , updatedAt, lastStartedAt, lastStatusChange] = podValues(pod);
    const result = this.statements.update.run(
      spec,
      status,
      placement,
      message,
      revision,
      updatedAt,
      lastStartedAt,
      lastStatusChange,
      pod.id,
      pod.accountId,
      expectedRevision,
    );
    return result.changes === 1;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.statements.delete.run(id, accountId).changes === 1;
  }

  async holdingResources(): Promise<PodHolding[]> {
    return (this.statements.holding.all() as PodRow[]).map(podFromRow).flatMap((pod) => holdingFromRecord(pod) ?? []);
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare(`INSERT INTO pods (${POD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    get: db.prepare('SELECT * FROM pods WHERE id = ? AND account_id = ?'),
    list: db.prepare('SELECT * FROM pods WHERE account_id = ? ORDER BY created_at, id'),
    listAll: db.prepare('SELECT * FROM pods ORDER BY created_at, id'),
    update: db.prepare(
      `UPDATE pods SET spec = ?, status = ?, placement = ?, message = ?, revision = ?, updated_at = ?, last_started_at = ?,
       last_status_change = ? WHERE id = ? AND account_id = ? AND revision = ?`,
    ),
    delete: db.prepare('DELETE FROM pods WHERE id = ? AND account_id = ?'),
    holding: db.prepare(`SELECT * FROM pods WHERE status IN ${HOLDING_STATUS_LIST} AND placement IS NOT NULL ORDER BY created_at, id`),
  };
}
