// Account SSH keys on SQLite: a replace deletes and inserts in one IMMEDIATE transaction.
import type Database from 'better-sqlite3';
import type { SshKeyStore } from '../ssh-key-store.js';

export class SqliteSshKeyStore implements SshKeyStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async list(accountId: string): Promise<string[]> {
    return (this.statements.list.all(accountId) as { public_key: string }[]).map((row) => row.public_key);
  }

  async replace(accountId: string, keys: readonly string[], at: string): Promise<void> {
    const write = this.db.transaction(() => {
      this.statements.clear.run(accountId);
      keys.forEach((key, position) => this.statements.insert.run(accountId, position, key, at));
    });
    write.immediate();
  }
}

function prepareStatements(db: Database.Database) {
  return {
    list: db.prepare('SELECT public_key FROM account_ssh_keys WHERE account_id = ? ORDER BY position'),
    clear: db.prepare('DELETE FROM account_ssh_keys WHERE account_id = ?'),
    insert: db.prepare('INSERT INTO account_ssh_keys (account_id, position, public_key, created_at) VALUES (?, ?, ?, ?)'),
  };
}
