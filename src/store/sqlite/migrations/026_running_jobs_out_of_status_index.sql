-- Fewer index entries written per job (docs/decisions/0004): a taken job no longer enters the
-- index of jobs by status, so the take writes one entry fewer and the completion moves none out.
-- Running jobs are read through jobs_running instead, which now leads with the endpoint, so an
-- endpoint's running jobs are found among its own entries; the sweeps, which look at every
-- running job, read all of it, and running jobs are few (at most what the workers hold).
DROP INDEX jobs_by_endpoint_status;
CREATE INDEX jobs_finished ON jobs (endpoint_id, status) WHERE status NOT IN ('IN_QUEUE', 'IN_PROGRESS');
DROP INDEX jobs_running;
CREATE INDEX jobs_running ON jobs (endpoint_id, lease_expires_at) WHERE status = 'IN_PROGRESS';
