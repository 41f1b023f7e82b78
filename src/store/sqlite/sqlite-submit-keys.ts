// Submit keys on SQLite. `insert` runs inside the transaction of the jobs it names (the job
// store's insertAll); a key already there fails it with a uniqueness violation.
import type Database from 'better-sqlite3';
import {
  SUBMIT_KEY_COLUMNS,
  submitKeyFromRow,
  submitKeyValues,
  type SubmitKeyRecord,
  type SubmitKeyRow,
  type SubmitKeyStore,
} from '../submit-key-store.js';

export class SqliteSubmitKeys implements SubmitKeyStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  insert(record: SubmitKeyRecord): void {
    this.statements.insert.run(...submitKeyValues(record));
  }

  async find(endpointId: string, key: string): Promise<SubmitKeyRecord | undefined> {
    const row = this.statements.find.get(endpointId, key) as SubmitKeyRow | undefined;
    return row && submitKeyFromRow(row);
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    return this.statements.deleteExpired.run(now, limit).changes;
  }

  /** Deletes up to `limit` keys of a deleted endpoint; answers how many. */
  async deleteOfEndpoint(endpointId: string, limit: number): Promise<number> {
    return this.statements.deleteOfEndpoint.run(endpointId, limit).changes;
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare(`INSERT INTO submit_keys (${SUBMIT_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`),
    find: db.prepare(`SELECT ${SUBMIT_KEY_COLUMNS} FROM submit_keys WHERE endpoint_id = ? AND idempotency_key = ?`),
    deleteExpired: db.prepare(
      'DELETE FROM submit_keys WHERE rowid IN (SELECT rowid FROM submit_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)',
    ),
    deleteOfEndpoint: db.prepare('DELETE FROM submit_keys WHERE rowid IN (SELECT rowid FROM submit_keys WHERE endpoint_id = ? LIMIT ?)'),
  };
}
