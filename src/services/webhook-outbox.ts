// Delivers finished jobs' webhooks from the store, where a job's terminal status marks its
// delivery due: each attempt is claimed first, so among several replicas one sends it, and a
// process that dies mid-attempt leaves it to come due again. A failed attempt is retried after
// the retry delay, three attempts in all. Every process polls for due deliveries, and is woken
// at once when it finishes a job itself. Each delivery is signed with its endpoint's secret
// (Standard Webhooks); its webhook-id is the same on every attempt.
import type { DueWebhook, JobState, JobStore } from '../store/job-store.js';
import { statusJson } from './job-view.js';
import type { WebhookSender } from './webhooks.js';
import { PeriodicTask } from '../domain/periodic-task.js';
import { silentLogger, type Logger } from '../domain/logger.js';
import { loggableUrl } from './loggable-url.js';
import { signatureHeaders } from './webhook-signature.js';
import type { WebhookSecretService } from './webhook-secrets.js';
import { storeErrorFields } from '../store/unavailable.js';

export interface OutboxOptions {
  retryDelayMs: number;
  attempts: number;
  pollMs: number;
  /** How long a claimed attempt is this process's alone: longer than a send can take. */
  claimMs: number;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = { retryDelayMs: 10_000, attempts: 3, pollMs: 1000, claimMs: 30_000 };

/** Deliveries in flight at once; more wait in the store. */
const MAX_IN_FLIGHT = 64;

export class WebhookOutbox {
  /** Looks for due deliveries every pollMs, and when woken. */
  private readonly poll: PeriodicTask;
  /** The last claim was full: more may be due as soon as a delivery ends. */
  private backlog = false;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  /** Set once this process has said its deliveries go unsigned for want of a secret key. */
  private toldKeyless = false;

  constructor(
    private readonly jobs: Pick<JobStore, 'claimWebhooks' | 'webhookAttempted'>,
    private readonly sender: WebhookSender,
    private readonly signing: Pick<WebhookSecretService, 'secretOf' | 'unavailable'>,
    private readonly options: OutboxOptions = DEFAULT_OUTBOX_OPTIONS,
    private readonly log: Logger = silentLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.poll = new PeriodicTask({
      run: () => this.drain(),
      everyMs: options.pollMs,
      onError: (err) => this.log.warn(storeErrorFields(err), 'could not read due webhooks'),
    });
  }

  checkTarget(url: string): Promise<string | undefined> {
    return this.sender.checkTarget(url);
  }

  start(): void {
    if (this.closed) return;
    this.poll.start({ runNow: true });
  }

  /**
   * Looks for due deliveries shortly, once the outbox has started: the jobs finished meanwhile are
   * claimed together (woken at once, a busy server claimed its finished jobs one at a time, a
   * transaction each).
   */
  wake(): void {
    if (!this.closed) this.poll.runSoon();
  }

  /** Stops claiming and cuts attempts short; what was left comes due again for the next process. */
  async close(): Promise<void> {
    this.closed = true;
    this.sender.close();
    await this.poll.stop();
    await Promise.all(this.inFlight);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room <= 0 || this.closed) return;
      const due = await this.jobs.claimWebhooks(this.now(), this.options.claimMs, room);
      this.backlog = due.length === room;
      for (const webhook of due) {
        const delivery: Promise<void> = this.deliver(webhook).finally(() => {
          this.inFlight.delete(delivery);
          if (this.backlog) this.wake();
        });
        this.inFlight.add(delivery);
      }
      if (!this.backlog) return;
    }
  }

  private async deliver({ job, attempt, sealedSecret }: DueWebhook): Promise<void> {
    const url = job.webhook ?? '';
    const body = statusJson(job, this.now());
    const outcome = await this.sender.send(url, body, await this.signed(job, sealedSecret, body));
    // Closing cut the attempt short: its claim lapses and the next process tries again. A delivery
    // that got through is still recorded (close waits for it), or it would be sent twice.
    if (this.closed && !outcome.delivered) return;
    let nextDueAt: number | null = null;
    if (!outcome.delivered) {
      if (!outcome.retry) this.log.warn({ url: loggableUrl(url), jobId: job.id, reason: outcome.why }, 'webhook target refused');
      else if (attempt >= this.options.attempts)
        this.log.warn({ url: loggableUrl(url), jobId: job.id, attempts: attempt, why: outcome.why }, 'webhook delivery failed');
      else nextDueAt = this.now() + this.options.retryDelayMs;
    }
    await this.jobs
      .webhookAttempted(job.id, nextDueAt)
      .catch((err: unknown) => this.log.warn({ err, jobId: job.id }, 'could not record a webhook attempt'));
  }

  /**
   * The signature headers of one attempt. Each outcome of a job is one delivery, named alike on
   * every attempt: `msg_<job id>`, and after a retry sent it back to the queue `msg_<job id>_<retries>`,
   * so a receiver that drops a message already handled still gets the retried job's outcome.
   * Without a usable secret (no --secret-key on PostgreSQL, or the endpoint is gone) the
   * delivery still goes, unsigned, as before signing existed; the reason is logged, never the secret.
   * Without a key, nothing is looked up and the reason is logged once: it holds for every delivery.
   */
  private async signed(job: JobState, sealedSecret: string | null, body: string): Promise<Record<string, string>> {
    const { id: jobId, endpointId } = job;
    const id = job.retries === 0 ? `msg_${jobId}` : `msg_${jobId}_${job.retries}`;
    const timestamp = Math.floor(this.now() / 1000);
    const unsigned = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
    const keyless = this.signing.unavailable;
    if (keyless !== undefined) {
      if (!this.toldKeyless) this.log.warn({ reason: keyless }, 'webhooks are sent unsigned');
      this.toldKeyless = true;
      return unsigned;
    }
    try {
      const secret = await this.signing.secretOf(endpointId, sealedSecret);
      if (secret !== undefined) return signatureHeaders(secret, { id, timestamp, body });
      this.log.warn({ jobId, endpointId, reason: 'its endpoint no longer exists' }, 'webhook sent unsigned');
    } catch (err) {
      this.log.warn({ jobId, endpointId, reason: (err as Error).message }, 'webhook sent unsigned');
    }
    return unsigned;
  }
}
