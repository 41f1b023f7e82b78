-- Webhook deliveries are kept with their job, so a restart loses none. When a job with a webhook
-- reaches a terminal status its delivery becomes due at once (0); a delivery being sent or
-- waiting to be retried holds the instant it is next due; NULL means nothing to deliver.
-- Triggers set it on every path to a terminal status, in the same transaction as the status.
ALTER TABLE jobs ADD COLUMN webhook_due_at INTEGER;
ALTER TABLE jobs ADD COLUMN webhook_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_webhooks_due ON jobs (webhook_due_at) WHERE webhook_due_at IS NOT NULL;

CREATE TRIGGER jobs_webhook_due AFTER UPDATE OF status ON jobs
  WHEN NEW.webhook IS NOT NULL
   AND NEW.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT')
   AND OLD.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT')
BEGIN
  UPDATE jobs SET webhook_due_at = 0, webhook_attempts = 0 WHERE seq = NEW.seq;
END;

-- A job sent back to the queue (a client retry) has nothing to deliver until it finishes again.
CREATE TRIGGER jobs_webhook_reopened AFTER UPDATE OF status ON jobs
  WHEN NEW.webhook_due_at IS NOT NULL AND NEW.status IN ('IN_QUEUE', 'IN_PROGRESS')
BEGIN
  UPDATE jobs SET webhook_due_at = NULL WHERE seq = NEW.seq;
END;
