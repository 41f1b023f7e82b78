-- Webhook deliveries move out of the job's row into a table of their own (docs/decisions/0044).
-- In the row, each claim and each attempt wrote a whole new version of the job, with an entry in
-- every index of jobs (webhook_due_at is indexed, so no update was HOT); here they write a row of
-- three numbers and the job's id. A delivery is owed from the update that gives its job a terminal
-- status until an attempt ends it; a job sent back to the queue owes none until it finishes again.
-- Older replicas must stop: they deliver webhooks from the job columns this drops.
CREATE TABLE webhook_deliveries (
  job_id      TEXT PRIMARY KEY,
  job_seq     BIGINT NOT NULL,
  due_at      BIGINT NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at, job_seq);

INSERT INTO webhook_deliveries (job_id, job_seq, due_at, attempts)
  SELECT id, seq, webhook_due_at, webhook_attempts FROM jobs WHERE webhook_due_at IS NOT NULL;

DROP TRIGGER jobs_webhook_due ON jobs;
DROP FUNCTION jobs_webhook_due();
DROP INDEX jobs_webhooks_due;
ALTER TABLE jobs DROP COLUMN webhook_due_at, DROP COLUMN webhook_attempts;

CREATE FUNCTION jobs_webhook_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT') THEN
    INSERT INTO webhook_deliveries (job_id, job_seq, due_at) VALUES (NEW.id, NEW.seq, 0)
      ON CONFLICT (job_id) DO UPDATE SET due_at = 0, attempts = 0;
  ELSE
    DELETE FROM webhook_deliveries WHERE job_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

-- Only a job with a webhook entering or leaving a terminal status calls the function: takes and
-- jobs without webhooks (most) never do.
CREATE TRIGGER jobs_webhook_delivery AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.webhook IS NOT NULL
    AND (OLD.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'))
      IS DISTINCT FROM (NEW.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT')))
  EXECUTE FUNCTION jobs_webhook_delivery();
