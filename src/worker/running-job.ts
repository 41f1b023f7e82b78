// One job on this worker: runs the handler, posts progress, stream chunks and the result in the
// order they happened, and goes quiet once the server stops the job.
import type { WorkerEnvironment } from './environment.js';
import type { Transport } from './transport.js';
import type { ResultBatcher } from './result-batcher.js';
import { runHandler, type DoneBody } from './result.js';
import type { Handler } from './types.js';

export interface TakenJob {
  id: string;
  input?: unknown;
  s3Config?: unknown;
}

export interface JobContext {
  transport: Transport;
  /** Results go through it, coalesced with other jobs' when the server takes batches. */
  results: ResultBatcher;
  env: WorkerEnvironment;
  returnAggregateStream: boolean;
  log(line: string): void;
}

export class RunningJob {
  private readonly controller = new AbortController();
  /** Every post of this job, chained: a progress update can never land after the result. */
  private posts: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(
    private readonly job: TakenJob,
    private readonly context: JobContext,
  ) {}

  get id(): string {
    return this.job.id;
  }

  /** The server asked for this job to stop (cancel, timeout, expiry): its result is not posted. */
  stop(): void {
    this.controller.abort(new Error(`job ${this.job.id} was stopped by the server`));
  }

  /**
   * Settles when the job is over for this worker: its result was posted, or it was stopped.
   * `handled` is called once, as soon as the handler is done (or the job stopped), before its
   * result is posted: the slot is free for the next job while the result travels. A handler that
   * ignores its signal goes on in the background, but no longer holds a slot.
   */
  async run(handler: Handler, handled: () => void = () => {}): Promise<void> {
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      handled();
    };
    const stopped = new Promise<void>((resolve) => this.controller.signal.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([this.execute(handler, free), stopped]);
    } finally {
      free();
      this.finished = true;
    }
  }

  private async execute(handler: Handler, handled: () => void): Promise<void> {
    const { env, returnAggregateStream } = this.context;
    const { id, input, s3Config } = this.job;
    const outcome = await runHandler(
      handler,
      {
        id,
        input,
        ...(s3Config === undefined ? {} : { s3Config }),
        signal: this.controller.signal,
        progress: (update) => this.enqueue(env.doneUrl(id, false), { status: 'IN_PROGRESS', output: update ?? null }),
      },
      {
        aggregate: returnAggregateStream,
        shouldGoOn: () => !this.controller.signal.aborted,
        onChunk: (chunk) => this.enqueue(env.streamUrl(id), { output: chunk }),
      },
    );
    handled();
    if (this.controller.signal.aborted) return;
    const result = (this.posts = this.posts.then(() => this.sendResult(outcome.isStream, outcome.body)));
    this.finished = true;
    await result;
  }

  private async sendResult(isStream: boolean, body: DoneBody): Promise<void> {
    if (this.controller.signal.aborted) return;
    const failure = await this.context.results.post({ jobId: this.job.id, isStream, body });
    if (failure) this.context.log(`job ${this.job.id}: ${failure}; that report is lost`);
  }

  /** Posts after every earlier post of this job; a no-op once the job is over. */
  private enqueue(url: string, body: DoneBody | { status: 'IN_PROGRESS'; output: unknown }): Promise<void> {
    if (this.finished || this.controller.signal.aborted) return Promise.resolve();
    this.posts = this.posts.then(() => this.send(url, body));
    return this.posts;
  }

  private async send(url: string, body: unknown): Promise<void> {
    if (this.controller.signal.aborted) return;
    try {
      const status = await this.context.transport.post(url, body);
      if (status >= 300) this.context.log(`job ${this.job.id}: ${new URL(url).pathname} answered ${status}; that report is lost`);
    } catch (error) {
      this.context.log(
        `job ${this.job.id}: ${new URL(url).pathname} failed after retries: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
