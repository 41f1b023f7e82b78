-- Each endpoint's workers by state, sampled by the leader; kept for a bounded time (24 h).
CREATE TABLE worker_samples (
  endpoint_id  TEXT NOT NULL,
  at_ms        INTEGER NOT NULL,
  running      INTEGER NOT NULL,
  idle         INTEGER NOT NULL,
  initializing INTEGER NOT NULL,
  throttled    INTEGER NOT NULL,
  unhealthy    INTEGER NOT NULL,
  PRIMARY KEY (endpoint_id, at_ms)
);
CREATE INDEX worker_samples_by_time ON worker_samples (at_ms);
