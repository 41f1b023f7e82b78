-- The health answer counts an endpoint's retried jobs. Without an index of their own that read
-- every job the endpoint retains (0.17 s of SQLite on the event loop at a million finished jobs);
-- retried jobs are few, and no take or result writes this index (they leave `retries` alone).
CREATE INDEX jobs_retried ON jobs (endpoint_id) WHERE retries > 0;
