-- Container registry credentials of an account. sealed_credential holds the username and password
-- sealed by the secrets box (src/services/secrets): the database never sees them in plain text.
CREATE TABLE registry_auths (
  id                 TEXT PRIMARY KEY,
  account_id         TEXT NOT NULL REFERENCES accounts(id),
  name               TEXT NOT NULL,
  sealed_credential  TEXT NOT NULL,
  created_at         TEXT NOT NULL,
  UNIQUE (account_id, name)
);
