-- The same data as the embedded SQLite store; times of jobs are epoch milliseconds (BIGINT),
-- record times are ISO-8601 text as the API shows them.
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
  rate_limit_exempt  BOOLEAN NOT NULL DEFAULT FALSE,
  expires_at         TEXT,
  revoked_at         TEXT,
  created_at         TEXT NOT NULL
);

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

CREATE TABLE templates (
  id          TEXT PRIMARY KEY,
  account_id  TEXT REFERENCES accounts(id),
  name        TEXT NOT NULL,
  is_public   BOOLEAN NOT NULL,
  spec        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX templates_by_account ON templates (account_id, created_at);
CREATE UNIQUE INDEX templates_name_per_account ON templates (account_id, name) WHERE account_id IS NOT NULL;
CREATE INDEX templates_shared ON templates (created_at) WHERE is_public;

CREATE TABLE releases (
  id           TEXT PRIMARY KEY,
  endpoint_id  TEXT NOT NULL,
  version      INTEGER NOT NULL,
  source       TEXT NOT NULL,
  diff         TEXT NOT NULL,
  created_by   TEXT,
  created_at   TEXT NOT NULL,
  UNIQUE (endpoint_id, version)
);

CREATE TABLE jobs (
  seq                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id                   TEXT NOT NULL UNIQUE,
  endpoint_id          TEXT NOT NULL,
  account_id           TEXT NOT NULL,
  status               TEXT NOT NULL,
  input                TEXT NOT NULL,
  webhook              TEXT,
  s3_config            TEXT,
  execution_timeout_ms BIGINT NOT NULL,
  low_priority         BOOLEAN NOT NULL DEFAULT FALSE,
  retention_ms         BIGINT NOT NULL,
  ttl_ms               BIGINT NOT NULL,
  submitted_at         BIGINT NOT NULL,
  started_at           BIGINT,
  completed_at         BIGINT,
  expires_at           BIGINT NOT NULL,
  output               TEXT,
  error                TEXT,
  worker_id            TEXT,
  lease_expires_at     BIGINT,
  retries              INTEGER NOT NULL DEFAULT 0,
  lease_losses         INTEGER NOT NULL DEFAULT 0,
  stream_read          INTEGER NOT NULL DEFAULT 0,
  stream_written       INTEGER NOT NULL DEFAULT 0
);
-- Take: the oldest normal-priority queued job of an endpoint first (partial, so it stays small).
CREATE INDEX jobs_queue ON jobs (endpoint_id, low_priority, seq) WHERE status = 'IN_QUEUE';
-- Lease and timeout sweeps look at running jobs only.
CREATE INDEX jobs_running ON jobs (lease_expires_at) WHERE status = 'IN_PROGRESS';
CREATE INDEX jobs_by_worker ON jobs (worker_id) WHERE status = 'IN_PROGRESS';
CREATE INDEX jobs_expiry ON jobs (expires_at);
CREATE INDEX jobs_by_endpoint_status ON jobs (endpoint_id, status);

CREATE TABLE job_stream (
  job_id  TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  output  TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
);

-- Jobs a worker must abort, until its stop channel hands them out (from any replica).
CREATE TABLE job_stops (
  worker_id     TEXT NOT NULL,
  job_id        TEXT NOT NULL,
  requested_at  BIGINT NOT NULL,
  PRIMARY KEY (worker_id, job_id)
);

CREATE TABLE worker_credentials (
  id           TEXT PRIMARY KEY,
  endpoint_id  TEXT NOT NULL,
  secret_hash  TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  revoked_at   TEXT
);
CREATE INDEX worker_credentials_by_endpoint ON worker_credentials (endpoint_id);

-- Coordination between replicas --------------------------------------------------------------

-- Named leases (the leader lease): one holder at a time until expires_at (epoch ms, database clock).
CREATE TABLE leases (
  name        TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  expires_at  BIGINT NOT NULL
);

-- Rate-limit windows shared by every replica.
CREATE TABLE rate_windows (
  account_id    TEXT NOT NULL,
  window_name   TEXT NOT NULL,
  window_start  BIGINT NOT NULL,
  count         INTEGER NOT NULL,
  PRIMARY KEY (account_id, window_name)
);

-- Each replica's live view of its workers, so every replica can list and count them.
CREATE TABLE replica_workers (
  replica_id   TEXT NOT NULL,
  worker_id    TEXT NOT NULL,
  endpoint_id  TEXT NOT NULL,
  view         TEXT NOT NULL,
  updated_at   BIGINT NOT NULL,
  PRIMARY KEY (replica_id, worker_id)
);
CREATE INDEX replica_workers_by_endpoint ON replica_workers (endpoint_id, updated_at);

-- Replicas announce themselves, so a worker's logs can be fetched from the replica that runs it.
CREATE TABLE replicas (
  id          TEXT PRIMARY KEY,
  url         TEXT NOT NULL,
  started_at  BIGINT NOT NULL,
  seen_at     BIGINT NOT NULL
);
