-- Accounts own every resource; API keys belong to one account.
CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL
);

CREATE TABLE api_keys (
  id                 TEXT PRIMARY KEY,
  account_id         TEXT NOT NULL REFERENCES accounts(id),
  name               TEXT NOT NULL,
  secret_hash        TEXT NOT NULL,
  permission         TEXT NOT NULL CHECK (permission IN ('full', 'read', 'endpoints')),
  endpoint_ids       TEXT NOT NULL DEFAULT '[]',
  rate_limit_exempt  INTEGER NOT NULL DEFAULT 0,
  expires_at         TEXT,
  revoked_at         TEXT,
  created_at         TEXT NOT NULL
);

-- spec holds the normalised endpoint configuration as JSON.
CREATE TABLE endpoints (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts(id),
  spec        TEXT NOT NULL,
  version     INTEGER NOT NULL,
  revision    INTEGER NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX endpoints_by_account ON endpoints (account_id, created_at);

-- account_id is NULL for the built-in public templates of the catalog.
CREATE TABLE templates (
  id          TEXT PRIMARY KEY,
  account_id  TEXT REFERENCES accounts(id),
  name        TEXT NOT NULL,
  is_public   INTEGER NOT NULL,
  spec        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX templates_by_account ON templates (account_id, created_at);
CREATE UNIQUE INDEX templates_name_per_account ON templates (account_id, name) WHERE account_id IS NOT NULL;
CREATE INDEX templates_shared ON templates (is_public, created_at) WHERE is_public = 1;
