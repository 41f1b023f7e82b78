// Account SSH keys on PostgreSQL. A replace locks the account's row first, so two replaces of one
// account run one after the other instead of interleaving their deletes and inserts.
import type pg from 'pg';
import type { SshKeyStore } from '../ssh-key-store.js';
import { transaction } from './database.js';

export class PostgresSshKeyStore implements SshKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async list(accountId: string): Promise<string[]> {
    const rows = (
      await this.pool.query<{ public_key: string }>('SELECT public_key FROM account_ssh_keys WHERE account_id = $1 ORDER BY position', [
        accountId,
      ])
    ).rows;
    return rows.map((row) => row.public_key);
  }

  replace(accountId: string, keys: readonly string[], at: string): Promise<void> {
    return transaction(this.pool, async (client) => {
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      await client.query('DELETE FROM account_ssh_keys WHERE account_id = $1', [accountId]);
      if (keys.length === 0) return;
      await client.query(
        `INSERT INTO account_ssh_keys (account_id, position, public_key, created_at)
         SELECT $1, position - 1, public_key, $3 FROM unnest($2::text[]) WITH ORDINALITY AS k(public_key, position)`,
        [accountId, keys, at],
      );
    });
  }
}
