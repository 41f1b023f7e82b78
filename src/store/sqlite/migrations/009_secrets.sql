-- Per-account secrets that endpoint and template env values reference as
-- {{ RUNPOD_SECRET_<name> }}. sealed_value is sealed by the secrets box (src/services/secrets):
-- the database never sees a value in plain text.
CREATE TABLE secrets (
  account_id    TEXT NOT NULL REFERENCES accounts(id),
  name          TEXT NOT NULL,
  sealed_value  TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  PRIMARY KEY (account_id, name)
);
