-- Fewer index entries written per job: each status change rewrote entries in every index that
-- holds the row's status (docs/decisions/0004).
-- jobs_by_worker served only the release of a gone worker's jobs, which reads the running jobs
-- through jobs_running instead.
DROP INDEX jobs_by_worker;
-- Queued jobs are counted through jobs_queue, so this index no longer holds them: a job enters it
-- when taken, not on submit.
DROP INDEX jobs_by_endpoint_status;
CREATE INDEX jobs_by_endpoint_status ON jobs (endpoint_id, status) WHERE status <> 'IN_QUEUE';
