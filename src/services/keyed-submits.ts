// Submits sent with an Idempotency-Key (docs/decisions/0040): the first queues its jobs and stores
// the key with them in one transaction; the same request sent again, from any replica, queues
// nothing and is answered with the jobs the first one queued. The key sent with another request
// (another body or route) is refused, and nothing is queued.
import type { EndpointRecord, Store } from '../store/store.js';
import { ApiError, unprocessable } from '../domain/errors.js';
import { StoreConflictError } from '../store/shared/conflicts.js';
import { JOB_LIMITS } from '../domain/job-state.js';
import type { Cancellation } from '../domain/cancellation.js';
import type { JobService, RunRequest } from './jobs.js';
import type { SubmitOnce } from './submit-keys.js';

export interface KeyedAnswer<T> {
  answer: T;
  /** True when the key was used before and nothing was queued now. */
  replayed: boolean;
}

/**
 * The requests a batch counts as beyond its first (decision 41): counted only when its jobs are to
 * be queued now, and given back when another copy of it, sent to another replica, queued them first.
 */
export interface BatchCount {
  count(): Promise<void>;
  giveBack(): Promise<void>;
}

/**
 * A copy of the request sent to another replica may have stored the key since it was read: this one
 * then lost the race to store it, or its batch was refused (429) for the requests the other's jobs
 * used. Both fail before this request stores anything, so a key found then is the other's.
 */
function mayHaveLostToCopy(error: unknown): boolean {
  return error instanceof StoreConflictError || (error instanceof ApiError && error.status === 429);
}

export class KeyedSubmits {
  /**
   * The last submit under way for each endpoint and key. The same key's submits take turns in a
   * process: a copy sent while the first is queuing waits for it and is answered with its jobs,
   * rather than reading no key yet, counting its jobs against the rate limits and then losing the
   * race to store the key (decision 41).
   */
  private readonly underWay = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly jobs: JobService,
  ) {}

  /** run: answers the id of the job queued under the key. */
  async run(endpoint: EndpointRecord, request: RunRequest, once: SubmitOnce): Promise<KeyedAnswer<string>> {
    const queue = async () => (await this.jobs.submit(endpoint, request, JOB_LIMITS.runRetentionMs, once)).id;
    return this.once(endpoint, once, queue, (ids) => ids[0]!);
  }

  /**
   * run-batch: answers the ids of the jobs queued under the key, in order. `batchCount` counts
   * only when the jobs are to be queued now, and may throw to queue nothing.
   */
  async runBatch(
    endpoint: EndpointRecord,
    requests: readonly RunRequest[],
    once: SubmitOnce,
    batchCount: BatchCount,
  ): Promise<KeyedAnswer<string[]>> {
    const queue = async () => {
      await batchCount.count();
      return (await this.jobs.submitBatch(endpoint, requests, JOB_LIMITS.runRetentionMs, once)).map((job) => job.id);
    };
    return this.once(
      endpoint,
      once,
      queue,
      (ids) => ids,
      () => batchCount.giveBack(),
    );
  }

  /** runsync: sent again, it waits for the job the first one queued. */
  async runSync(
    endpoint: EndpointRecord,
    request: RunRequest,
    waitMs: number,
    signal: Cancellation | undefined,
    once: SubmitOnce,
  ): Promise<KeyedAnswer<string>> {
    return this.once(
      endpoint,
      once,
      () => this.jobs.runSync(endpoint, request, waitMs, signal, once),
      (ids) => this.jobs.waitForResult(endpoint.id, ids[0]!, waitMs, signal),
    );
  }

  /** `undoQueuing` takes back what an attempt to queue did before another copy's jobs answered it. */
  private async once<T>(
    endpoint: EndpointRecord,
    once: SubmitOnce,
    queue: () => Promise<T>,
    replay: (jobIds: string[]) => T | Promise<T>,
    undoQueuing?: () => Promise<void>,
  ): Promise<KeyedAnswer<T>> {
    const slot = `${endpoint.id} ${once.key}`;
    const ahead = this.underWay.get(slot);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.underWay.set(slot, mine);
    try {
      await ahead;
      return await this.onceInTurn(endpoint, once, queue, replay, undoQueuing);
    } finally {
      done();
      if (this.underWay.get(slot) === mine) this.underWay.delete(slot);
    }
  }

  private async onceInTurn<T>(
    endpoint: EndpointRecord,
    once: SubmitOnce,
    queue: () => Promise<T>,
    replay: (jobIds: string[]) => T | Promise<T>,
    undoQueuing: (() => Promise<void>) | undefined,
  ): Promise<KeyedAnswer<T>> {
    const earlier = await this.earlier(endpoint.id, once);
    if (earlier) return { answer: await replay(earlier), replayed: true };
    try {
      return { answer: await queue(), replayed: false };
    } catch (error) {
      const raced = mayHaveLostToCopy(error) ? await this.earlier(endpoint.id, once) : undefined;
      if (!raced) throw error;
      await undoQueuing?.();
      return { answer: await replay(raced), replayed: true };
    }
  }

  /** The jobs queued under this key before, if any; the key used for another request is 422. */
  private async earlier(endpointId: string, once: SubmitOnce): Promise<string[] | undefined> {
    const found = await this.store.submitKeys.find(endpointId, once.key);
    if (!found) return undefined;
    if (found.fingerprint !== once.fingerprint) {
      throw unprocessable(
        `Idempotency-Key '${once.key}' was already used on this endpoint for another request; a key may be sent again only with the same request`,
      );
    }
    return found.jobIds;
  }
}
