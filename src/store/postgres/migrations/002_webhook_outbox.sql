-- Webhook deliveries are kept with their job, so a restart or a dead replica loses none. When a
-- job with a webhook reaches a terminal status its delivery becomes due at once (0); a delivery
-- being sent or waiting to be retried holds the instant it is next due; NULL means nothing to
-- deliver. The trigger sets it on every path to a terminal status, in the status's own update.
ALTER TABLE jobs ADD COLUMN webhook_due_at BIGINT, ADD COLUMN webhook_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_webhooks_due ON jobs (webhook_due_at) WHERE webhook_due_at IS NOT NULL;

CREATE FUNCTION jobs_webhook_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.webhook IS NOT NULL
     AND NEW.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT')
     AND OLD.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT') THEN
    NEW.webhook_due_at := 0;
    NEW.webhook_attempts := 0;
  ELSIF NEW.status IN ('IN_QUEUE', 'IN_PROGRESS') THEN
    -- Sent back to the queue (a client retry): nothing to deliver until it finishes again.
    NEW.webhook_due_at := NULL;
  END IF;
  RETURN NEW;
END $$;

-- Jobs without a webhook (most) never call the function.
CREATE TRIGGER jobs_webhook_due BEFORE UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.webhook IS NOT NULL) EXECUTE FUNCTION jobs_webhook_due();
