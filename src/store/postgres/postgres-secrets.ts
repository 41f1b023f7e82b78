// Per-account secrets on PostgreSQL. A secret an endpoint or template references cannot be deleted.
import type pg from 'pg';
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
import { transaction } from './database.js';

export class PostgresSecretStore implements SecretStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(r: SecretRecord): Promise<void> {
    await uniquely(
      () =>
        this.pool.query('INSERT INTO secrets (account_id, name, sealed_value, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [
          r.accountId,
          r.name,
          r.sealedValue,
          r.createdAt,
          r.updatedAt,
        ]),
      () => secretConflictText(r.name),
    );
  }

  async get(accountId: string, name: string): Promise<SecretRecord | undefined> {
    const row = (await this.pool.query<SecretRow>('SELECT * FROM secrets WHERE account_id = $1 AND name = $2', [accountId, name])).rows[0];
    return row && secretFromRow(row);
  }

  async getMany(accountId: string, names: readonly string[]): Promise<SecretRecord[]> {
    if (names.length === 0) return [];
    const rows = (
      await this.pool.query<SecretRow>('SELECT * FROM secrets WHERE account_id = $1 AND name = ANY($2::text[]) ORDER BY name', [
        accountId,
        [...names],
      ])
    ).rows;
    return rows.map(secretFromRow);
  }

  async list(accountId: string): Promise<SecretRecord[]> {
    return (await this.pool.query<SecretRow>('SELECT * FROM secrets WHERE account_id = $1 ORDER BY name', [accountId])).rows.map(
      secretFromRow,
    );
  }

  async rotate(accountId: string, name: string, sealedValue: string, at: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE secrets SET sealed_value = $1, updated_at = $2 WHERE account_id = $3 AND name = $4', [
      sealedValue,
      at,
      accountId,
      name,
    ]);
    return result.rowCount === 1;
  }

  delete(accountId: string, name: string): Promise<SecretDeletion> {
    return transaction(this.pool, async (client): Promise<SecretDeletion> => {
      // The row lock orders concurrent deletes of one secret.
      const found = await client.query('SELECT 1 FROM secrets WHERE account_id = $1 AND name = $2 FOR UPDATE', [accountId, name]);
      if (found.rowCount === 0) return { outcome: 'missing' };
      const text = referenceText(name);
      const specs = (table: 'endpoints' | 'templates') =>
        client.query<SpecRow>(`SELECT id, spec FROM ${table} WHERE account_id = $1 AND strpos(spec, $2) > 0 ORDER BY created_at, id`, [
          accountId,
          text,
        ]);
      const endpointIds = idsReferencing((await specs('endpoints')).rows, name);
      const templateIds = idsReferencing((await specs('templates')).rows, name);
      if (endpointIds.length + templateIds.length > 0) return { outcome: 'in-use', endpointIds, templateIds };
      await client.query('DELETE FROM secrets WHERE account_id = $1 AND name = $2', [accountId, name]);
      return { outcome: 'deleted' };
    });
  }
}
