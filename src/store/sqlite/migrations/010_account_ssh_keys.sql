-- The SSH public keys of an account (authorized_keys entries), in the order they were set.
CREATE TABLE account_ssh_keys (
  account_id  TEXT NOT NULL REFERENCES accounts(id),
  position    INTEGER NOT NULL,
  public_key  TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (account_id, position)
);
