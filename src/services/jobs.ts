// The queue as clients use it: submit, wait, read status and streams, cancel, retry, purge, health.
import type { Clock } from '../domain/clock.js';
import type { EndpointRecord, Store } from '../store/store.js';
import type { JobCounts, JobRecord, JobState, NewJob } from '../store/job-store.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { timeOrderedUuid } from '../domain/ids.js';
import { canCancel, canRetry, isTerminal, JOB_LIMITS, leaseEnd, runsyncRetentionMs } from '../domain/job-state.js';
import type { Claim, JobEvents, TakerOffer } from './waitlist.js';
import type { WorkerCounts, WorkerRegistry } from '../runtime/worker-registry.js';
import { statusJson } from './job-view.js';
import { EndpointCache } from './endpoint-cache.js';
import type { PurgedJobDeleter } from './purged-jobs.js';
import type { Cancellation } from '../domain/cancellation.js';
import type { Logger } from '../domain/logger.js';
import { submitKeyRecord, type SubmitOnce } from './submit-keys.js';

export interface RunRequest {
  input: Record<string, unknown>;
  /** The input as the client wrote it, where writing the parsed input again would change its numbers. */
  inputText?: string;
  webhook?: string;
  webhookV2?: string;
  policy?: { executionTimeout?: number; lowPriority?: boolean; ttl?: number };
  s3Config?: Record<string, unknown>;
}

/** Webhooks: targets are checked at submit; a terminal status in the store makes the delivery due. */
export interface WebhookSink {
  checkTarget(url: string): Promise<string | undefined>;
  /** A job of this process just finished: look for due deliveries now rather than at the next poll. */
  wake(): void;
}

export interface QueueTimings {
  streamWaitMs: number;
}

/** Jobs stored already taken by a waiting take, to be handed to it once committed. */
interface HandOff {
  taker: Claim<JobRecord[], TakerOffer>;
  jobs: JobRecord[];
}

export interface JobObserver {
  jobFinished(job: JobState): void;
}

export interface JobServiceParts {
  store: Store;
  events: JobEvents;
  workers: WorkerRegistry;
  webhooks: WebhookSink;
  timings: QueueTimings;
  log: Logger;
  observer?: JobObserver;
  countWorkers?: (endpointId: string) => WorkerCounts;
  now?: Clock;
  /** Deletes the rows of purged jobs in the background; without it they stay (hidden) until they expire. */
  purgedRows?: PurgedJobDeleter;
}

export class JobService {
  private readonly endpoints: EndpointCache;
  private readonly store: Store;
  private readonly events: JobEvents;
  private readonly workers: WorkerRegistry;
  private readonly webhooks: WebhookSink;
  private readonly timings: QueueTimings;
  private readonly log: Logger;
  private readonly observer: JobObserver | undefined;
  private readonly countWorkers: (endpointId: string) => WorkerCounts;
  private readonly now: Clock;
  readonly purgedRows: PurgedJobDeleter | undefined;

  constructor(parts: JobServiceParts) {
    this.store = parts.store;
    this.events = parts.events;
    this.workers = parts.workers;
    this.webhooks = parts.webhooks;
    this.timings = parts.timings;
    this.log = parts.log;
    this.observer = parts.observer;
    this.purgedRows = parts.purgedRows;
    this.countWorkers = parts.countWorkers ?? ((id) => parts.workers.counts(id, this.now()));
    this.now = parts.now ?? Date.now;
    this.endpoints = new EndpointCache(this.store, this.now);
    this.events.onEndpointChanged((endpointId) => this.endpoints.invalidate(endpointId));
  }

  /** The caller's endpoint of either type, from the short-lived copy; undefined when unknown or another account's. */
  endpointOf(accountId: string, endpointId: string): Promise<EndpointRecord | undefined> {
    return this.endpoints.get(accountId, endpointId);
  }

  /** The caller's queue endpoint: another account's or an unknown one is 404, a load balancer has no queue. */
  async queueEndpoint(accountId: string, endpointId: string): Promise<EndpointRecord> {
    const endpoint = await this.endpoints.get(accountId, endpointId);
    if (!endpoint) throw notFound(`endpoint ${endpointId} not found`);
    if (endpoint.spec.type !== 'QUEUE') {
      throw badRequest(`endpoint ${endpointId} is a LOAD_BALANCER endpoint; it has no job queue (send requests to its own URL)`);
    }
    return endpoint;
  }

  /** Queues a job; with `once`, its key is stored with it, and a key already used fails with a StoreConflictError. */
  async submit(endpoint: EndpointRecord, request: RunRequest, retentionMs: number, once?: SubmitOnce): Promise<JobRecord> {
    // No await without a webhook: the job goes to a waiting take in the same turn as the request.
    if (request.webhook !== undefined || request.webhookV2 !== undefined) await this.checkWebhook(request, '');
    const now = this.now();
    const queued = this.queuedJob(endpoint, request, retentionMs, now);
    const [job] = await this.queue(endpoint, [queued], now, (rows) =>
      once ? this.store.jobs.insertAll(rows, submitKeyRecord(endpoint.id, once, [queued], now)) : this.store.jobs.insert(rows[0]!),
    );
    return job!;
  }

  /**
   * Queues several jobs in one request (run-batch): they are checked first and stored in one
   * transaction, so either all are queued or none is (docs/decisions/0039). Answered in order.
   */
  async submitBatch(
    endpoint: EndpointRecord,
    requests: readonly RunRequest[],
    retentionMs: number,
    once?: SubmitOnce,
  ): Promise<JobRecord[]> {
    await Promise.all(requests.map((request, index) => this.checkWebhook(request, `jobs[${index}].`)));
    // Submitted together, so at the same moment; the store keeps their order (its sequence).
    const now = this.now();
    const queued = requests.map((request) => this.queuedJob(endpoint, request, retentionMs, now));
    const key = once && submitKeyRecord(endpoint.id, once, queued, now);
    return this.queue(endpoint, queued, now, (rows) => this.store.jobs.insertAll(rows, key));
  }

  private async checkWebhook(request: RunRequest, path: string): Promise<void> {
    const webhook = request.webhook ?? request.webhookV2;
    if (webhook === undefined) return;
    const reason = await this.webhooks.checkTarget(webhook);
    if (reason) throw badRequest('the webhook URL is not allowed', [`${path}${request.webhook ? 'webhook' : 'webhookV2'}: ${reason}`]);
  }

  private queuedJob(endpoint: EndpointRecord, request: RunRequest, retentionMs: number, now: number): JobRecord {
    const ttlMs = request.policy?.ttl ?? JOB_LIMITS.defaultTtlMs;
    // One literal with every field: spreading a new job into its record cost a few percent of a
    // busy server's CPU in profiles.
    return {
      // Time-ordered, so a busy queue's inserts touch the last pages of the id index, not random ones.
      id: `${timeOrderedUuid(now)}-${endpoint.id.slice(0, 4)}`,
      endpointId: endpoint.id,
      accountId: endpoint.accountId,
      input: request.inputText ?? JSON.stringify(request.input),
      webhook: request.webhook ?? request.webhookV2 ?? null,
      s3Config: request.s3Config === undefined ? null : JSON.stringify(request.s3Config),
      executionTimeoutMs: request.policy?.executionTimeout ?? endpoint.spec.timeout,
      lowPriority: request.policy?.lowPriority ?? false,
      retentionMs,
      ttlMs,
      submittedAt: now,
      expiresAt: now + ttlMs,
      status: 'IN_QUEUE',
      startedAt: null,
      completedAt: null,
      output: null,
      error: null,
      workerId: null,
      leaseExpiresAt: null,
      retries: 0,
      leaseLosses: 0,
    };
  }

  /**
   * Stores new jobs with `insert`. Workers long-polling here get them at once, each as many as its
   * take asked for: stored already taken by it, one write instead of a submit and a take
   * (docs/decisions/0027), started the moment they were submitted (`now`). Answers the jobs as
   * submitted: accepted into the queue, even those that left it at once.
   */
  private async queue(
    endpoint: EndpointRecord,
    queued: JobRecord[],
    now: number,
    insert: (rows: NewJob[]) => Promise<void>,
  ): Promise<JobRecord[]> {
    const rows: NewJob[] = [];
    const handOffs: HandOff[] = [];
    let next = 0;
    while (next < queued.length) {
      const taker = this.events.queues.claim(endpoint.id, (offer) => !this.workers.isParked(offer.workerId));
      if (!taker) break;
      const { workerId, leaseMs, limit } = taker.offer;
      const handedTo = { workerId, startedAt: now, leaseUntil: now + leaseMs };
      const jobs = queued.slice(next, next + limit);
      next += jobs.length;
      for (const job of jobs) rows.push({ ...job, handedTo });
      handOffs.push({
        taker,
        jobs: jobs.map((job) => ({
          ...job,
          status: 'IN_PROGRESS',
          workerId,
          startedAt: now,
          leaseExpiresAt: leaseEnd(handedTo.leaseUntil, now, job.executionTimeoutMs),
        })),
      });
    }
    const left = queued.length - next;
    const notice = left > 0 ? this.events.queuedNotice(endpoint.id, left) : undefined;
    for (let i = next; i < queued.length; i++) {
      // The other replicas' takers wake as the insert commits: one notice for all, on the first row.
      rows.push(notice !== undefined && i === next ? { ...queued[i]!, notice } : queued[i]!);
    }
    try {
      await insert(rows);
    } catch (error) {
      for (const { taker } of handOffs) taker.release();
      throw error;
    }
    if (left > 0) this.events.jobsQueued(endpoint.id, left, notice !== undefined);
    for (const { taker, jobs } of handOffs) {
      if (taker.deliver(jobs)) continue;
      // The jobs are stored, so the submit succeeded even if they cannot go back now.
      const ids = jobs.map((job) => job.id);
      await this.handBackOrLog(endpoint.id, taker.offer.workerId, ids, 'a job handed to a take that had ended');
    }
    return queued;
  }

  /** Jobs a take holds that no worker will get (its request ended) go back to the queue, no retry counted. */
  async handBack(endpointId: string, workerId: string, jobIds: string[]): Promise<void> {
    const back = await this.store.jobs.handBack(workerId, jobIds);
    if (back.length > 0) this.events.jobsQueued(endpointId, back.length);
  }

  /**
   * As handBack, where a failure has no one to answer to: the jobs then wait for their leases to
   * lapse (the sweep requeues them), and the log names each (`what` says how it was taken).
   */
  async handBackOrLog(endpointId: string, workerId: string, jobIds: string[], what: string): Promise<void> {
    await this.handBack(endpointId, workerId, jobIds).catch((error: unknown) => {
      for (const jobId of jobIds) {
        this.log.warn({ err: error, jobId, workerId }, `${what} could not go back to the queue; it waits for its lease to lapse`);
      }
    });
  }

  /** A job of this endpoint that has not expired; anything else is 404. */
  async live(endpointId: string, jobId: string): Promise<JobState> {
    const job = await this.store.jobs.getState(jobId);
    if (!job || !this.isLive(job, endpointId)) {
      throw notFound(`job ${jobId} not found (unknown, or its results have expired)`);
    }
    return job;
  }

  async status(endpointId: string, jobId: string, ttlMs?: number): Promise<string> {
    const job = await this.live(endpointId, jobId);
    if (ttlMs !== undefined) await this.store.jobs.setExpiry(job.id, this.now() + ttlMs);
    return statusJson(job, this.now());
  }

  /**
   * Submits a job and waits for its result (runsync). The job as it was written is the first look:
   * reading it back would cost a database round trip, and on SQLite a wait for the next commit.
   */
  async runSync(endpoint: EndpointRecord, request: RunRequest, waitMs: number, signal?: Cancellation, once?: SubmitOnce): Promise<string> {
    // Marked before the insert: a worker that finishes the job at any moment after it wakes the wait.
    const since = this.events.jobs.mark();
    const job = await this.submit(endpoint, request, runsyncRetentionMs(waitMs), once);
    return this.waitForResult(job.endpointId, job.id, waitMs, signal, { job, since });
  }

  /**
   * Waits until the job is terminal or `waitMs` passes; returns its status body either way.
   * `seen`: the job as this process just wrote it, with the mark taken before, instead of a first read.
   */
  async waitForResult(
    endpointId: string,
    jobId: string,
    waitMs: number,
    signal?: Cancellation,
    seen?: { job: JobState; since: number },
  ): Promise<string> {
    const deadline = this.now() + waitMs;
    for (let first = seen; ; first = undefined) {
      // Marked before the read: a change committed while the read waited for its commit is not slept through.
      const since = first?.since ?? this.events.jobs.mark();
      const job = first?.job ?? (await this.live(endpointId, jobId));
      const left = deadline - this.now();
      if (isTerminal(job.status) || left <= 0 || signal?.aborted) return statusJson(job, this.now());
      const woken = await this.events.jobs.wait(jobId, left, signal, since);
      // Finished here or on another replica: the state its completion returned, unless a retry
      // since then has been read here (a late event of an earlier attempt).
      if (typeof woken === 'object' && woken.retries >= job.retries && this.isLive(woken, endpointId)) {
        return statusJson(woken, this.now());
      }
    }
  }

  private isLive(job: Pick<JobState, 'endpointId' | 'expiresAt'>, endpointId: string): boolean {
    return job.endpointId === endpointId && job.expiresAt > this.now();
  }

  /** Chunks produced since the previous read; waits briefly for one while the job still runs. */
  async stream(endpointId: string, jobId: string, signal?: Cancellation): Promise<{ status: string; stream: string[] }> {
    const deadline = this.now() + this.timings.streamWaitMs;
    for (;;) {
      const since = this.events.jobs.mark();
      const job = await this.live(endpointId, jobId);
      const read = await this.store.jobs.readStream(jobId);
      const chunks = read.chunks;
      // The reader has left (before or while the chunks were read): they go back for the next read.
      if (signal?.aborted && chunks.length > 0) {
        await this.store.jobs.unreadStream(jobId, read);
        return { status: job.status, stream: [] };
      }
      const left = deadline - this.now();
      if (chunks.length > 0 || isTerminal(job.status) || left <= 0 || signal?.aborted) {
        return { status: job.status, stream: chunks };
      }
      await this.events.jobs.wait(jobId, left, signal, since);
    }
  }

  async cancel(endpointId: string, jobId: string): Promise<JobState> {
    const job = await this.live(endpointId, jobId);
    if (!canCancel(job.status)) {
      throw conflict(`job ${jobId} is ${job.status}; only IN_QUEUE or IN_PROGRESS jobs can be cancelled`);
    }
    const cancelled = await this.store.jobs.complete(jobId, ['IN_QUEUE', 'IN_PROGRESS'], {
      status: 'CANCELLED',
      output: null,
      error: null,
      completedAt: this.now(),
    });
    if (!cancelled) return this.cancel(endpointId, jobId);
    if (job.status === 'IN_PROGRESS' && cancelled.workerId) await this.stopOnWorker(endpointId, cancelled.workerId, jobId);
    this.finished(cancelled);
    return cancelled;
  }

  async retry(endpointId: string, jobId: string): Promise<JobState> {
    const job = await this.live(endpointId, jobId);
    if (!canRetry(job.status)) {
      throw conflict(`job ${jobId} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`);
    }
    const requeued = await this.store.jobs.requeue(jobId, ['FAILED', 'TIMED_OUT'], this.now() + job.ttlMs);
    if (!requeued) throw conflict(`job ${jobId} changed while being retried; read its status and try again`);
    this.events.jobChanged(jobId);
    this.events.jobsQueued(endpointId);
    return requeued;
  }

  /** Queued jobs are gone at once (never taken, shown or counted again); their rows are deleted behind. */
  async purge(endpointId: string): Promise<number> {
    const removed = await this.store.jobs.purgeQueued(endpointId);
    if (removed > 0) this.purgedRows?.start();
    return removed;
  }

  async health(endpointId: string): Promise<{ jobs: Omit<JobCounts, 'cancelled' | 'timedOut'>; workers: WorkerCounts }> {
    const counts = await this.store.jobs.counts(endpointId);
    return {
      jobs: {
        completed: counts.completed,
        failed: counts.failed,
        inProgress: counts.inProgress,
        inQueue: counts.inQueue,
        retried: counts.retried,
      },
      workers: this.countWorkers(endpointId),
    };
  }

  /** Tells a worker to abort a job: recorded first, so a stop channel on any replica finds it when woken. */
  async stopOnWorker(endpointId: string, workerId: string, jobId: string): Promise<void> {
    this.workers.jobReleased(workerId, jobId);
    await this.store.jobs.requestStop(endpointId, workerId, jobId, this.now());
    this.events.stopRequested(workerId);
  }

  /** Everything that follows a job reaching a terminal status. */
  finished(job: JobState): void {
    this.events.jobChanged(job.id, isTerminal(job.status) ? job : undefined);
    if (isTerminal(job.status)) this.observer?.jobFinished(job);
    if (job.webhook && isTerminal(job.status)) this.webhooks.wake();
  }
}
