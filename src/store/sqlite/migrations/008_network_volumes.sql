-- Network volumes: storage of an account in one data center, mounted by its endpoints' workers.
-- The files live in a directory per volume under --volume-root; this is what the API knows of it.
CREATE TABLE network_volumes (
  id              TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts(id),
  name            TEXT NOT NULL,
  size_gb         INTEGER NOT NULL,
  data_center_id  TEXT NOT NULL,
  type            TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX network_volumes_by_account ON network_volumes (account_id, created_at);
