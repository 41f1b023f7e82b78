-- A lease now never runs past its job's execution deadline (docs/decisions/0043), so the sweeps
-- find timed-out jobs among the ended leases of jobs_running (by lease) instead of reading every running job.
-- The leases set before this rule are brought under it.
-- Older replicas must stop: they set leases past the execution deadline, where the timeout sweep no longer looks
UPDATE jobs SET lease_expires_at = started_at + execution_timeout_ms
WHERE status = 'IN_PROGRESS' AND lease_expires_at > started_at + execution_timeout_ms;
