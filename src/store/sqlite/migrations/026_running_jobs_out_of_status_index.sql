-- Fewer index entries written per job (docs/decisions/0004): a taken job no longer enters the
-- index of jobs by status, so the take writes one entry fewer and the completion moves none out.
-- Running jobs are few (at most what the workers hold) and are read through jobs_running.
DROP INDEX jobs_by_endpoint_status;
CREATE INDEX jobs_finished ON jobs (endpoint_id, status) WHERE status NOT IN ('IN_QUEUE', 'IN_PROGRESS');
