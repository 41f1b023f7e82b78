-- A stop request names the endpoint of its job, so a worker id used on another endpoint's path
-- drains nothing. Requests recorded before this migration have none and go to the worker id alone.
ALTER TABLE job_stops ADD COLUMN endpoint_id TEXT;
