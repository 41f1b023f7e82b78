-- The health answer counts an endpoint's retried jobs. Counted with the statuses, that read every
-- job row the endpoint retains from the table (about half a second at a million jobs); with an
-- index of their own the statuses are counted from jobs_by_endpoint_status alone. Retried jobs are
-- few, and no take or result adds an entry here (the index holds only rows with retries > 0).
CREATE INDEX jobs_retried ON jobs (endpoint_id) WHERE retries > 0;
