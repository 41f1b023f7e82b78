-- An endpoint's jobs newest first (the job list and its charts) without scanning other endpoints' jobs.
CREATE INDEX jobs_by_endpoint_seq ON jobs (endpoint_id, seq);
