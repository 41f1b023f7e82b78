// Webhook secrets on PostgreSQL: a column of the endpoint's row.
import type pg from 'pg';
import type { WebhookSecretStore } from '../webhook-secret-store.js';

export class PostgresWebhookSecretStore implements WebhookSecretStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(endpointId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ sealed_webhook_secret: string | null }>(
      'SELECT sealed_webhook_secret FROM endpoints WHERE id = $1',
      [endpointId],
    );
    return rows[0]?.sealed_webhook_secret ?? undefined;
  }

  async setIfMissing(endpointId: string, sealed: string): Promise<string | undefined> {
    // COALESCE keeps a secret another process stored first, and returns whichever is kept.
    const { rows } = await this.pool.query<{ sealed_webhook_secret: string }>(
      'UPDATE endpoints SET sealed_webhook_secret = COALESCE(sealed_webhook_secret, $1) WHERE id = $2 RETURNING sealed_webhook_secret',
      [sealed, endpointId],
    );
    return rows[0]?.sealed_webhook_secret;
  }

  async replace(endpointId: string, sealed: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE endpoints SET sealed_webhook_secret = $1 WHERE id = $2', [sealed, endpointId]);
    return (rowCount ?? 0) > 0;
  }
}
