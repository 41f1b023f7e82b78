// The per-account-secrets part of the Store port. Values arrive already sealed by the secrets box:
// the store keeps and returns them as opaque text. A secret is known by its name in its account.

export interface SecretRecord {
  accountId: string;
  /** Unique within the account; what `{{ RUNPOD_SECRET_<name> }}` names. */
  name: string;
  /** The value, sealed; never plain text. */
  sealedValue: string;
  createdAt: string;
  /** When the value was last set (creation or rotation). */
  updatedAt: string;
}

/** What a delete did: the secret is gone, was never there, or endpoints or templates still reference it. */
export type SecretDeletion =
  { outcome: 'deleted' } | { outcome: 'missing' } | { outcome: 'in-use'; endpointIds: string[]; templateIds: string[] };

export interface SecretStore {
  /** Fails with StoreConflictError when the account already has a secret of that name. */
  insert(record: SecretRecord): Promise<void>;
  /** The account's secret of that name; another account's is undefined, like an unknown name. */
  get(accountId: string, name: string): Promise<SecretRecord | undefined>;
  /** The account's secrets of those names (unknown names are left out): what one worker start needs. */
  getMany(accountId: string, names: readonly string[]): Promise<SecretRecord[]>;
  /** By name. */
  list(accountId: string): Promise<SecretRecord[]>;
  /** Sets a new sealed value; false when there is no such secret. */
  rotate(accountId: string, name: string, sealedValue: string, at: string): Promise<boolean>;
  /**
   * In one transaction: refuses while an endpoint or template of the account references the
   * secret in its env (`{{ RUNPOD_SECRET_<name> }}`); otherwise deletes it.
   */
  delete(accountId: string, name: string): Promise<SecretDeletion>;
}

export interface SecretRow {
  account_id: string;
  name: string;
  sealed_value: string;
  created_at: string;
  updated_at: string;
}

export function secretFromRow(row: SecretRow): SecretRecord {
  return { accountId: row.account_id, name: row.name, sealedValue: row.sealed_value, createdAt: row.created_at, updatedAt: row.updated_at };
}

export const secretConflictText = (name: string) => `a secret named '${name}' already exists in this account`;
