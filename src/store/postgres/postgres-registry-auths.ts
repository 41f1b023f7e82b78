// Registry credentials on PostgreSQL. A credential named by an endpoint's `registry` (kept inside
// the endpoint's JSON spec) cannot be deleted; templates naming it lose the reference instead.
import type pg from 'pg';
import {
  registryAuthConflictText,
  registryAuthFromRow,
  type RegistryAuthDeletion,
  type RegistryAuthRecord,
  type RegistryAuthRow,
  type RegistryAuthStore,
} from '../registry-auth-store.js';
import { uniquely } from '../shared/conflicts.js';
import { transaction } from './database.js';

export class PostgresRegistryAuthStore implements RegistryAuthStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(r: RegistryAuthRecord): Promise<void> {
    await uniquely(
      () =>
        this.pool.query('INSERT INTO registry_auths (id, account_id, name, sealed_credential, created_at) VALUES ($1, $2, $3, $4, $5)', [
          r.id,
          r.accountId,
          r.name,
          r.sealedCredential,
          r.createdAt,
        ]),
      async () =>
        (await this.pool.query('SELECT 1 FROM registry_auths WHERE account_id = $1 AND name = $2', [r.accountId, r.name])).rowCount
          ? registryAuthConflictText.name(r.name)
          : registryAuthConflictText.id(r.id),
    );
  }

  async get(accountId: string, id: string): Promise<RegistryAuthRecord | undefined> {
    const row = (await this.pool.query<RegistryAuthRow>('SELECT * FROM registry_auths WHERE id = $1 AND account_id = $2', [id, accountId]))
      .rows[0];
    return row && registryAuthFromRow(row);
  }

  async list(accountId: string): Promise<RegistryAuthRecord[]> {
    const rows = (
      await this.pool.query<RegistryAuthRow>('SELECT * FROM registry_auths WHERE account_id = $1 ORDER BY created_at, id', [accountId])
    ).rows;
    return rows.map(registryAuthFromRow);
  }

  async updateCredential(accountId: string, id: string, sealedCredential: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE registry_auths SET sealed_credential = $1 WHERE id = $2 AND account_id = $3', [
      sealedCredential,
      id,
      accountId,
    ]);
    return result.rowCount === 1;
  }

  delete(accountId: string, id: string, at: string): Promise<RegistryAuthDeletion> {
    return transaction(this.pool, async (client): Promise<RegistryAuthDeletion> => {
      // The row lock orders concurrent deletes of one credential.
      const found = await client.query('SELECT 1 FROM registry_auths WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, accountId]);
      if (found.rowCount === 0) return { outcome: 'missing' };
      const users = await client.query<{ id: string }>(
        `SELECT id FROM endpoints WHERE account_id = $1 AND spec::jsonb ->> 'registry' = $2 ORDER BY created_at, id`,
        [accountId, id],
      );
      if (users.rows.length > 0) return { outcome: 'in-use', endpointIds: users.rows.map((row) => row.id) };
      const cleared = await client.query<{ id: string }>(
        `UPDATE templates SET spec = jsonb_set(spec::jsonb, '{registry}', 'null'::jsonb)::text, updated_at = $1
         WHERE account_id = $2 AND spec::jsonb ->> 'registry' = $3 RETURNING id`,
        [at, accountId, id],
      );
      await client.query('DELETE FROM registry_auths WHERE id = $1 AND account_id = $2', [id, accountId]);
      return { outcome: 'deleted', clearedTemplateIds: cleared.rows.map((row) => row.id).sort() };
    });
  }
}
