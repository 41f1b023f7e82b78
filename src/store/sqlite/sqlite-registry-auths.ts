// Registry credentials on SQLite. A credential named by an endpoint's `registry` (kept inside the
// endpoint's JSON spec) cannot be deleted; templates naming it lose the reference instead.
import type Database from 'better-sqlite3';
import {
  registryAuthConflictText,
  registryAuthFromRow,
  type RegistryAuthDeletion,
  type RegistryAuthRecord,
  type RegistryAuthRow,
  type RegistryAuthStore,
} from '../registry-auth-store.js';
import { uniquely } from '../shared/conflicts.js';

export class SqliteRegistryAuthStore implements RegistryAuthStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async insert(r: RegistryAuthRecord): Promise<void> {
    await uniquely(
      () => this.statements.insert.run(r.id, r.accountId, r.name, r.sealedCredential, r.createdAt),
      () =>
        this.statements.nameTaken.get(r.accountId, r.name) ? registryAuthConflictText.name(r.name) : registryAuthConflictText.id(r.id),
    );
  }

  async get(accountId: string, id: string): Promise<RegistryAuthRecord | undefined> {
    const row = this.statements.get.get(id, accountId) as RegistryAuthRow | undefined;
    return row && registryAuthFromRow(row);
  }

  async list(accountId: string): Promise<RegistryAuthRecord[]> {
    return (this.statements.list.all(accountId) as RegistryAuthRow[]).map(registryAuthFromRow);
  }

  async updateCredential(accountId: string, id: string, sealedCredential: string): Promise<boolean> {
    return this.statements.updateCredential.run(sealedCredential, id, accountId).changes === 1;
  }

  async delete(accountId: string, id: string, at: string): Promise<RegistryAuthDeletion> {
    // IMMEDIATE: no endpoint can take the credential between the check and the delete.
    const remove = this.db.transaction((): RegistryAuthDeletion => {
      if (!this.statements.get.get(id, accountId)) return { outcome: 'missing' };
      const users = (this.statements.endpointsUsing.all(accountId, id) as { id: string }[]).map((row) => row.id);
      if (users.length > 0) return { outcome: 'in-use', endpointIds: users };
      const cleared = (this.statements.clearTemplates.all(at, accountId, id) as { id: string }[]).map((row) => row.id).sort();
      this.statements.delete.run(id, accountId);
      return { outcome: 'deleted', clearedTemplateIds: cleared };
    });
    return remove.immediate();
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare('INSERT INTO registry_auths (id, account_id, name, sealed_credential, created_at) VALUES (?, ?, ?, ?, ?)'),
    get: db.prepare('SELECT * FROM registry_auths WHERE id = ? AND account_id = ?'),
    nameTaken: db.prepare('SELECT 1 FROM registry_auths WHERE account_id = ? AND name = ?'),
    list: db.prepare('SELECT * FROM registry_auths WHERE account_id = ? ORDER BY created_at, id'),
    endpointsUsing: db.prepare(
      `SELECT id FROM endpoints WHERE account_id = ? AND json_extract(spec, '$.registry') = ? ORDER BY created_at, id`,
    ),
    clearTemplates: db.prepare(`UPDATE templates SET spec = json_set(spec, '$.registry', json('null')), updated_at = ?
      WHERE account_id = ? AND json_extract(spec, '$.registry') = ? RETURNING id`),
    updateCredential: db.prepare('UPDATE registry_auths SET sealed_credential = ? WHERE id = ? AND account_id = ?'),
    delete: db.prepare('DELETE FROM registry_auths WHERE id = ? AND account_id = ?'),
  };
}
