-- The Idempotency-Key of each keyed submit, with the ids of the jobs it queued, kept for a day
-- (docs/decisions/0040). Written in the transaction of its jobs; the sweeper deletes expired ones.
CREATE TABLE submit_keys (
  endpoint_id     TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint     TEXT NOT NULL,
  job_ids         TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  expires_at      BIGINT NOT NULL,
  PRIMARY KEY (endpoint_id, idempotency_key)
);
CREATE INDEX submit_keys_by_expiry ON submit_keys (expires_at);
