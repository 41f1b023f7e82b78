-- Fewer index entries written per job (docs/decisions/0004). Every status change makes a new row
-- version, and a new version gets an entry in every index of jobs, so each index costs each job.
-- jobs_by_worker served only the release of a gone worker's jobs, which reads the running jobs
-- through jobs_running instead.
DROP INDEX jobs_by_worker;
-- Queued jobs are counted through jobs_queue, so this index no longer holds them: a job enters it
-- when taken, not on submit. Rebuilding it holds writes to jobs for as long as that takes.
DROP INDEX jobs_by_endpoint_status;
CREATE INDEX jobs_by_endpoint_status ON jobs (endpoint_id, status) WHERE status <> 'IN_QUEUE';
