// The account SSH key part of the Store port: an account's authorized_keys entries, kept in the
// order they were set. They are public keys, stored as sent (after the service checked them).

export interface SshKeyStore {
  /** The account's keys in the order they were set; [] when it has none. */
  list(accountId: string): Promise<string[]>;
  /** Replaces the account's whole set in one transaction; concurrent replaces never mix. */
  replace(accountId: string, keys: readonly string[], at: string): Promise<void>;
}
