// The worker side of the queue, as RunPod SDK workers speak it: take (long-polled), done,
// stream chunks, the stop channel and pings. Results are accepted at least once and
// repeated posts of a finished job are harmless.
import type { Store } from '../store/store.js';
import type { JobRecord, JobState, ResultFrom } from '../store/job-store.js';
import { isTerminal, JOB_LIMITS } from '../domain/job-state.js';
import type { JobEvents } from './waitlist.js';
import type { WorkerRegistry } from '../runtime/worker-registry.js';
import type { JobService } from './jobs.js';
import type { Clock } from '../domain/clock.js';
import { splitStreamChunk } from '../domain/stream-chunks.js';
import { jsonSourceAt, mayChangeNumbers } from '../domain/json-source.js';
import type { Cancellation } from '../domain/cancellation.js';
import { ownership, type BatchItem, type ResultOutcome } from './worker-result-batch.js';

export interface WorkerTimings {
  jobLeaseMs: number;
  takeWaitMs: number;
  maxOutputBytes: number;
}

/** What a job-done body says, once read. */
export type DoneReport =
  | { kind: 'progress'; output: string }
  | { kind: 'result'; status: 'COMPLETED' | 'FAILED'; output: string | null; error: string | null; stopPod: boolean };

const MAX_BATCH = 64;

/** The output's text: as the worker wrote it where writing the parsed value again could change its numbers. */
function outputText(raw: string, output: unknown, inBody: boolean): string {
  const exact = mayChangeNumbers(raw) ? jsonSourceAt(raw, inBody ? ['output'] : []) : undefined;
  return exact ?? JSON.stringify(output);
}

/** Reads a job-done body: `{output}`, `{error}` (with or without output), `{status: "IN_PROGRESS", output}`. */
export function readDoneBody(raw: string, byteLength: number, maxOutputBytes: number): DoneReport {
  if (byteLength > maxOutputBytes) {
    return {
      kind: 'result',
      status: 'FAILED',
      output: null,
      error: `the job's output of ${byteLength} bytes exceeds this deployment's limit of ${maxOutputBytes} bytes`,
      stopPod: false,
    };
  }
  let body: Record<string, unknown>;
  let parsedIsBody = false;
  try {
    const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
    parsedIsBody = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    body = parsedIsBody ? (parsed as Record<string, unknown>) : { output: parsed };
  } catch {
    return { kind: 'result', status: 'FAILED', output: null, error: 'the worker sent a result that is not valid JSON', stopPod: false };
  }
  const output = body.output === undefined ? null : outputText(raw, body.output, parsedIsBody);
  if (body.status === 'IN_PROGRESS') return { kind: 'progress', output: output ?? 'null' };
  const stopPod = body.stopPod === true;
  if (body.error !== undefined && body.error !== null && body.error !== '') {
    // A traceback may quote binary data; a NUL cannot be stored as text (decision 48), and refusing it would leave the job running.
    const error = typeof body.error === 'string' ? body.error.replaceAll('\u0000', '\uFFFD') : JSON.stringify(body.error);
    return { kind: 'result', status: 'FAILED', output, error, stopPod };
  }
  return { kind: 'result', status: 'COMPLETED', output, error: null, stopPod };
}

/** The worker's side of the queue: takes, results, progress, stream chunks and pings. */
export class WorkerProtocolService {
  constructor(
    private readonly store: Store,
    private readonly events: JobEvents,
    private readonly workers: WorkerRegistry,
    private readonly jobs: JobService,
    private readonly timings: WorkerTimings,
    /** The cluster's clock (decision 47), the registry's too. */
    private readonly now: Clock = Date.now,
  ) {}

  /**
   * Answers the moment a job is available, or with nothing after the long-poll wait (`waitMs`,
   * the deployment's take wait unless given; 0 looks once and does not wait).
   */
  async take(
    endpointId: string,
    workerId: string,
    batchSize: number,
    signal: Cancellation,
    waitMs = this.timings.takeWaitMs,
  ): Promise<JobRecord[]> {
    const limit = Math.max(1, Math.min(MAX_BATCH, batchSize));
    const deadline = this.now() + waitMs;
    // The client leaving and the worker being stopped both end the long-poll with no job.
    const open = this.workers.openTake(workerId, endpointId, this.now(), signal);
    const ended = open.ended;
    try {
      // Jobs submitted while this take waited are handed to it directly, stored already taken.
      const offer = { workerId, leaseMs: this.timings.jobLeaseMs, limit };
      // Whether the last wait on the queue ended by a wake-up (a job arrived) rather than by time.
      let woken = false;
      for (;;) {
        if (ended.aborted) return [];
        if (this.workers.isParked(workerId)) {
          // A frozen or draining worker holds its long-poll open but takes no job. A wake-up it
          // got on the queue before it was parked goes on to another taker; then it waits to be
          // put back to work off the queue (two parked waiters on it passed wake-ups to each other
          // without end, and the server spun until their deadline).
          if (woken) this.events.jobsQueued(endpointId);
          woken = false;
          const left = deadline - this.now();
          if (left <= 0) return [];
          await this.workers.whenUnparked(workerId, left, ended);
          continue;
        }
        const now = this.now();
        // Marked before the take: a job queued while the take waited for its commit is not slept through.
        const since = this.events.queues.mark();
        const taken = await this.store.jobs.take(endpointId, workerId, limit, now, now + this.timings.jobLeaseMs);
        if (taken.length > 0) return await this.handOut(endpointId, workerId, taken, ended);
        const left = deadline - this.now();
        if (left <= 0) return [];
        const wake = await this.events.queues.wait(endpointId, left, ended, since, offer);
        if (Array.isArray(wake)) return await this.handOut(endpointId, workerId, wake, ended);
        woken = wake;
      }
    } finally {
      open.close(this.now());
    }
  }

  /** Jobs this take holds, taken from the store or handed to it at their submit. */
  private async handOut(endpointId: string, workerId: string, taken: JobRecord[], ended: Cancellation): Promise<JobRecord[]> {
    // The client left (or the worker was stopped) while the take committed: no one will get
    // these jobs, so they go back now rather than wait out a lease nobody can renew. So do jobs
    // handed to a worker frozen since (it could not run them).
    if (ended.aborted || this.workers.isParked(workerId)) {
      await this.jobs.handBack(
        endpointId,
        workerId,
        taken.map((job) => job.id),
      );
      return [];
    }
    this.workers.jobsTaken(
      workerId,
      taken.map((j) => j.id),
    );
    return taken;
  }

  async done(endpointId: string, workerId: string, jobId: string, report: DoneReport): Promise<void> {
    this.workers.seen(workerId, endpointId, this.now());
    if (report.kind === 'progress') return this.progress(endpointId, workerId, jobId, report.output);
    // The result is written first, without reading the job: the row it answers says which worker
    // held it. One from another worker is taken only after a lease was lost since the job was last
    // retried: it is then the late result of that lease (it wins; the worker holding the job now
    // stops). Otherwise it answers an attempt before a retry, or a job this worker never took.
    const finished = await this.complete(endpointId, jobId, report, { workerId, late: true });
    if (!finished) {
      // A finished, expired, unknown or retried job: the post is a repeat, came too late or is not this worker's; accept it quietly.
      const job = await this.store.jobs.getState(jobId);
      if (job?.endpointId === endpointId && job.workerId === workerId) this.workers.reported(workerId, endpointId, this.now());
      this.workers.jobReleased(workerId, jobId);
      return;
    }
    await this.recorded(endpointId, workerId, jobId, report, finished);
  }

  /** Writes a result of the worker's (see JobStore.complete for `late`). */
  private complete(endpointId: string, jobId: string, report: DoneReport & { kind: 'result' }, by: ResultFrom) {
    const completion = { status: report.status, output: report.output, error: report.error, completedAt: this.now() };
    return this.store.jobs.complete(jobId, ['IN_QUEUE', 'IN_PROGRESS'], completion, endpointId, by);
  }

  /** What follows a recorded result: the worker's books, a recycle it asked for, the job's waiters. */
  private async recorded(endpointId: string, workerId: string, jobId: string, report: DoneReport & { kind: 'result' }, finished: JobState) {
    if (finished.workerId === workerId) this.workers.reported(workerId, endpointId, this.now());
    this.workers.jobReleased(workerId, jobId);
    if (report.stopPod) this.workers.requestRecycle(workerId);
    // The job had gone back to the queue and another worker may hold it now: this result wins, that one stops.
    if (finished.workerId && finished.workerId !== workerId) await this.jobs.stopOnWorker(endpointId, finished.workerId, jobId);
    this.jobs.finished(finished);
  }

  private async progress(endpointId: string, workerId: string, jobId: string, output: string): Promise<void> {
    const now = this.now();
    // One write records the progress of the worker's own running job; the job is read only when it did not.
    if (await this.store.jobs.recordProgress(jobId, output, { endpointId, workerId, leaseUntil: now + this.timings.jobLeaseMs })) {
      this.workers.reported(workerId, endpointId, now);
      this.events.jobChanged(jobId);
      return;
    }
    const job = await this.store.jobs.getState(jobId);
    if (job?.endpointId !== endpointId) return this.workers.jobReleased(workerId, jobId);
    if (job.workerId === workerId) this.workers.reported(workerId, endpointId, now);
    if (isTerminal(job.status)) this.workers.jobReleased(workerId, jobId);
  }

  /** Several results of this worker's jobs, each with its own outcome (see worker-result-batch.ts). */
  async doneBatch(endpointId: string, workerId: string, items: BatchItem<DoneReport>[]): Promise<ResultOutcome[]> {
    // Different jobs' results are recorded together, so they share one commit instead of waiting
    // for one each; a job named again in the batch is settled after its first item, as a later
    // request would be.
    const firstItems = new Set<string>();
    const outcomes: (ResultOutcome | undefined)[] = await Promise.all(
      items.map((item) => {
        if ('invalid' in item) return { id: item.id, outcome: 'rejected' as const, detail: item.invalid };
        if (firstItems.has(item.id)) return undefined;
        firstItems.add(item.id);
        return this.doneItem(endpointId, workerId, item.id, item.report);
      }),
    );
    for (const [index, item] of items.entries()) {
      if (outcomes[index] === undefined && 'report' in item)
        outcomes[index] = await this.doneItem(endpointId, workerId, item.id, item.report);
    }
    return outcomes as ResultOutcome[];
  }

  /**
   * Records a batch of results and takes up to `size` jobs in the same exchange, without waiting
   * for a job. Both are written at once, into one group commit on SQLite and in parallel on
   * PostgreSQL, so the exchange waits for one commit instead of two in a row. Results that fail
   * send the jobs taken beside them back to the queue, so the worker can post the same results
   * again and take the usual way.
   */
  async doneBatchAndTake(
    endpointId: string,
    workerId: string,
    items: BatchItem<DoneReport>[],
    size: number,
    signal: Cancellation,
  ): Promise<{ results: ResultOutcome[]; jobs: JobRecord[] }> {
    const [recorded, taken] = await Promise.allSettled([
      this.doneBatch(endpointId, workerId, items),
      this.take(endpointId, workerId, size, signal, 0),
    ]);
    if (recorded.status === 'rejected') {
      if (taken.status === 'fulfilled' && taken.value.length > 0) {
        const ids = taken.value.map((job) => job.id);
        for (const id of ids) this.workers.jobReleased(workerId, id);
        await this.jobs.handBackOrLog(endpointId, workerId, ids, 'a job taken beside results that failed');
      }
      throw recorded.reason;
    }
    if (taken.status === 'rejected') throw taken.reason;
    return { results: recorded.value, jobs: taken.value };
  }

  private async doneItem(endpointId: string, workerId: string, jobId: string, report: DoneReport): Promise<ResultOutcome> {
    if (report.kind === 'result') {
      // Written only if this worker holds the job, so the usual case costs one statement; the
      // job is read only to say why a result was not recorded.
      this.workers.seen(workerId, endpointId, this.now());
      const finished = await this.complete(endpointId, jobId, report, { workerId, late: false });
      if (finished) {
        await this.recorded(endpointId, workerId, jobId, report, finished);
        return { id: jobId, outcome: 'accepted' };
      }
    }
    const owned = await ownership(this.store, endpointId, workerId, jobId);
    if (typeof owned === 'object') return { id: jobId, outcome: 'rejected', detail: owned.rejected };
    if (owned === 'finished') return { id: jobId, outcome: 'duplicate' };
    await this.done(endpointId, workerId, jobId, report);
    return { id: jobId, outcome: 'accepted' };
  }

  /** `text` is the output as the worker wrote it, where it differs from writing `output` again. */
  async streamChunk(endpointId: string, workerId: string, jobId: string, output: unknown, text?: string): Promise<void> {
    const now = this.now();
    this.workers.seen(workerId, endpointId, now);
    // One write appends the chunks and renews the worker's lease, only on a job of this endpoint
    // that is not finished; the job is read only when nothing was appended.
    const chunks = splitStreamChunk(output, JOB_LIMITS.streamChunkBytes, text);
    const appended = await this.store.jobs.appendStream(jobId, chunks, { endpointId, workerId, leaseUntil: now + this.timings.jobLeaseMs });
    if (appended) {
      if (appended.workerId === workerId) this.workers.reported(workerId, endpointId, now);
      this.events.jobChanged(jobId);
      return;
    }
    // A late chunk of a finished job that was this worker's still tells that the worker reports.
    const job = await this.store.jobs.getState(jobId);
    if (job?.endpointId === endpointId && job.workerId === workerId) this.workers.reported(workerId, endpointId, now);
  }

  /** Jobs the worker must abort: answered at once when there are some, else after a long-poll. */
  async stops(endpointId: string, workerId: string, signal: Cancellation): Promise<string[]> {
    this.workers.seen(workerId, endpointId, this.now());
    const deadline = this.now() + this.timings.takeWaitMs;
    for (;;) {
      const since = this.events.stops.mark();
      const stops = await this.store.jobs.drainStops(endpointId, workerId);
      // Drained for a client that has left (before or during the drain): kept for its next long-poll, or the job would run on.
      if (stops.length > 0 && signal.aborted) return await this.keepStops(endpointId, workerId, stops);
      const left = deadline - this.now();
      if (stops.length > 0 || left <= 0 || signal.aborted) return stops;
      await this.events.stops.wait(workerId, left, signal, since);
    }
  }

  private async keepStops(endpointId: string, workerId: string, jobIds: string[]): Promise<[]> {
    const now = this.now();
    for (const jobId of jobIds) await this.store.jobs.requestStop(endpointId, workerId, jobId, now);
    return [];
  }

  async ping(endpointId: string, workerId: string, jobIds: string[], unhealthy: string | undefined): Promise<void> {
    const now = this.now();
    this.workers.pinged(workerId, endpointId, now, jobIds, unhealthy);
    if (jobIds.length > 0) await this.store.jobs.renewLeases(endpointId, workerId, jobIds, now + this.timings.jobLeaseMs);
  }
}
