-- Jobs of queue endpoints. seq orders the queue; times are epoch milliseconds.
CREATE TABLE jobs (
  seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
  id                   TEXT NOT NULL UNIQUE,
  endpoint_id          TEXT NOT NULL,
  account_id           TEXT NOT NULL,
  status               TEXT NOT NULL,
  input                TEXT NOT NULL,
  webhook              TEXT,
  s3_config            TEXT,
  execution_timeout_ms INTEGER NOT NULL,
  low_priority         INTEGER NOT NULL DEFAULT 0,
  retention_ms         INTEGER NOT NULL,
  ttl_ms               INTEGER NOT NULL,
  submitted_at         INTEGER NOT NULL,
  started_at           INTEGER,
  completed_at         INTEGER,
  expires_at           INTEGER NOT NULL,
  output               TEXT,
  error                TEXT,
  worker_id            TEXT,
  lease_expires_at     INTEGER,
  retries              INTEGER NOT NULL DEFAULT 0,
  lease_losses         INTEGER NOT NULL DEFAULT 0,
  stream_read          INTEGER NOT NULL DEFAULT 0,
  stream_written       INTEGER NOT NULL DEFAULT 0
);
-- The take path: the oldest normal-priority job first, low-priority ones after.
CREATE INDEX jobs_queue ON jobs (endpoint_id, low_priority, seq) WHERE status = 'IN_QUEUE';
CREATE INDEX jobs_running ON jobs (lease_expires_at) WHERE status = 'IN_PROGRESS';
CREATE INDEX jobs_by_worker ON jobs (worker_id) WHERE status = 'IN_PROGRESS';
CREATE INDEX jobs_expiry ON jobs (expires_at);
CREATE INDEX jobs_by_endpoint_status ON jobs (endpoint_id, status);

-- Streamed output chunks, read by clients in order.
CREATE TABLE job_stream (
  job_id  TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  output  TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;

-- Credentials that let a worker speak the worker protocol of one endpoint.
CREATE TABLE worker_credentials (
  id           TEXT PRIMARY KEY,
  endpoint_id  TEXT NOT NULL,
  secret_hash  TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  revoked_at   TEXT
);
CREATE INDEX worker_credentials_by_endpoint ON worker_credentials (endpoint_id);
