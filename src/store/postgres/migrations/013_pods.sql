-- Pods: long-running containers of an account. The configuration is JSON; status, placement and
-- the times of the last start and status change are columns a meter reads.
CREATE TABLE pods (
  id                  TEXT PRIMARY KEY,
  account_id          TEXT NOT NULL REFERENCES accounts(id),
  spec                TEXT NOT NULL,
  status              TEXT NOT NULL,
  placement           TEXT,
  message             TEXT,
  revision            INTEGER NOT NULL,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL,
  last_started_at     TEXT,
  last_status_change  TEXT NOT NULL
);
CREATE INDEX pods_by_account ON pods (account_id, created_at);
CREATE INDEX pods_by_status ON pods (status);
