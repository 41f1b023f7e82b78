// The registry-credential part of the Store port. The credential (username and password) arrives
// already sealed by the secrets box: the store keeps and returns it as opaque text.

export interface RegistryAuthRecord {
  id: string;
  accountId: string;
  /** Unique within the account. */
  name: string;
  /** Username and password, sealed; never plain text. */
  sealedCredential: string;
  createdAt: string;
}

/** What a delete did: the credential is gone, was never there, or endpoints still pull with it. */
export type RegistryAuthDeletion =
  { outcome: 'deleted'; clearedTemplateIds: string[] } | { outcome: 'missing' } | { outcome: 'in-use'; endpointIds: string[] };

export interface RegistryAuthStore {
  /** Fails with StoreConflictError when the account already has a credential of that name. */
  insert(record: RegistryAuthRecord): Promise<void>;
  /** The account's credential of that id; another account's is undefined, like an unknown id. */
  get(accountId: string, id: string): Promise<RegistryAuthRecord | undefined>;
  /** Oldest first, then by id. */
  list(accountId: string): Promise<RegistryAuthRecord[]>;
  /** Puts a new sealed credential in place of the old one; false when the account has no such credential. */
  updateCredential(accountId: string, id: string, sealedCredential: string): Promise<boolean>;
  /**
   * In one transaction: refuses while an endpoint of the account names the credential in its
   * `registry`; otherwise deletes it and sets `registry` to null on the account's templates that
   * named it (their `updatedAt` becomes `at`).
   */
  delete(accountId: string, id: string, at: string): Promise<RegistryAuthDeletion>;
}

export interface RegistryAuthRow {
  id: string;
  account_id: string;
  name: string;
  sealed_credential: string;
  created_at: string;
}

export function registryAuthFromRow(row: RegistryAuthRow): RegistryAuthRecord {
  return { id: row.id, accountId: row.account_id, name: row.name, sealedCredential: row.sealed_credential, createdAt: row.created_at };
}

export const registryAuthConflictText = {
  name: (name: string) => `a registry credential named '${name}' already exists in this account`,
  id: (id: string) => `registry credential ${id} already exists`,
};
