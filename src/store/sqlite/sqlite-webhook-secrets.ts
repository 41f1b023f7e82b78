// Webhook secrets on SQLite: a column of the endpoint's row.
import type Database from 'better-sqlite3';
import type { WebhookSecretStore } from '../webhook-secret-store.js';

interface SecretRow {
  sealed_webhook_secret: string | null;
}

export class SqliteWebhookSecretStore implements WebhookSecretStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async get(endpointId: string): Promise<string | undefined> {
    const row = this.statements.get.get(endpointId) as SecretRow | undefined;
    return row?.sealed_webhook_secret ?? undefined;
  }

  async setIfMissing(endpointId: string, sealed: string): Promise<string | undefined> {
    this.statements.setIfMissing.run(sealed, endpointId);
    return this.get(endpointId);
  }

  async replace(endpointId: string, sealed: string): Promise<boolean> {
    return this.statements.replace.run(sealed, endpointId).changes > 0;
  }
}

function prepareStatements(db: Database.Database) {
  return {
    get: db.prepare('SELECT sealed_webhook_secret FROM endpoints WHERE id = ?'),
    setIfMissing: db.prepare('UPDATE endpoints SET sealed_webhook_secret = ? WHERE id = ? AND sealed_webhook_secret IS NULL'),
    replace: db.prepare('UPDATE endpoints SET sealed_webhook_secret = ? WHERE id = ?'),
  };
}
