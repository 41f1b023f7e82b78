-- A purge hides an endpoint's whole queue at once by starting a new queue generation; the rows of
-- the old one are deleted behind it in small batches. A job joins the current generation when it
-- is queued (submit, retry, lost lease), so what was queued before the purge is never taken,
-- shown or counted again, and what is queued after it is. See docs/decisions/0015.
CREATE TABLE queue_generations (
  endpoint_id TEXT PRIMARY KEY,
  generation  INTEGER NOT NULL
);

ALTER TABLE jobs ADD COLUMN queue_generation INTEGER NOT NULL DEFAULT 0;

DROP INDEX jobs_queue;
CREATE INDEX jobs_queue ON jobs (endpoint_id, queue_generation, low_priority, seq) WHERE status = 'IN_QUEUE';
