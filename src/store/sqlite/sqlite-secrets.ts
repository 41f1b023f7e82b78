// Per-account secrets on SQLite. A secret an endpoint or template references cannot be deleted.
import type Database from 'better-sqlite3';
import {
  secretConflictText,
  secretFromRow,
  type SecretDeletion,
  type SecretRecord,
  type SecretRow,
  type SecretStore,
} from '../secret-store.js';
import { uniquely } from '../shared/conflicts.js';
import { idsReferencing, referenceText, type SpecRow } from '../shared/secret-users.js';

export class SqliteSecretStore implements SecretStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async insert(r: SecretRecord): Promise<void> {
    await uniquely(
      () => this.statements.insert.run(r.accountId, r.name, r.sealedValue, r.createdAt, r.updatedAt),
      () => secretConflictText(r.name),
    );
  }

  async get(accountId: string, name: string): Promise<SecretRecord | undefined> {
    const row = this.statements.get.get(accountId, name) as SecretRow | undefined;
    return row && secretFromRow(row);
  }

  async getMany(accountId: string, names: readonly string[]): Promise<SecretRecord[]> {
    if (names.length === 0) return [];
    const rows = this.db
      .prepare(`SELECT * FROM secrets WHERE account_id = ? AND name IN (${names.map(() => '?').join(', ')}) ORDER BY name`)
      .all(accountId, ...names) as SecretRow[];
    return rows.map(secretFromRow);
  }

  async list(accountId: string): Promise<SecretRecord[]> {
    return (this.statements.list.all(accountId) as SecretRow[]).map(secretFromRow);
  }

  async rotate(accountId: string, name: string, sealedValue: string, at: string): Promise<boolean> {
    return this.statements.rotate.run(sealedValue, at, accountId, name).changes === 1;
  }

  async delete(accountId: string, name: string): Promise<SecretDeletion> {
    // IMMEDIATE: no endpoint or template can take up the reference between the check and the delete.
    const remove = this.db.transaction((): SecretDeletion => {
      if (!this.statements.get.get(accountId, name)) return { outcome: 'missing' };
      const text = referenceText(name);
      const endpointIds = idsReferencing(this.statements.endpointSpecs.all(accountId, text) as SpecRow[], name);
      const templateIds = idsReferencing(this.statements.templateSpecs.all(accountId, text) as SpecRow[], name);
      if (endpointIds.length + templateIds.length > 0) return { outcome: 'in-use', endpointIds, templateIds };
      this.statements.delete.run(accountId, name);
      return { outcome: 'deleted' };
    });
    return remove.immediate();
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare('INSERT INTO secrets (account_id, name, sealed_value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
    get: db.prepare('SELECT * FROM secrets WHERE account_id = ? AND name = ?'),
    list: db.prepare('SELECT * FROM secrets WHERE account_id = ? ORDER BY name'),
    rotate: db.prepare('UPDATE secrets SET sealed_value = ?, updated_at = ? WHERE account_id = ? AND name = ?'),
    endpointSpecs: db.prepare('SELECT id, spec FROM endpoints WHERE account_id = ? AND instr(spec, ?) > 0 ORDER BY created_at, id'),
    templateSpecs: db.prepare('SELECT id, spec FROM templates WHERE account_id = ? AND instr(spec, ?) > 0 ORDER BY created_at, id'),
    delete: db.prepare('DELETE FROM secrets WHERE account_id = ? AND name = ?'),
  };
}
