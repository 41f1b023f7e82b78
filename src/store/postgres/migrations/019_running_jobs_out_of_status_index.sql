-- Fewer index entries written per job (docs/decisions/0004): a taken job's row version no longer
-- enters the index of jobs by status. Running jobs are few (at most what the workers hold) and
-- are read through jobs_running. Building the new index holds writes to jobs for as long as that takes.
DROP INDEX jobs_by_endpoint_status;
CREATE INDEX jobs_finished ON jobs (endpoint_id, status) WHERE status NOT IN ('IN_QUEUE', 'IN_PROGRESS');
