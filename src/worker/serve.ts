// The worker loop: take jobs (long-polled), run the handler, post results, stream chunks,
// report progress, ping, and abort jobs the stop channel names.
import { readEnvironment, type WorkerEnvironment } from './environment.js';
import { Transport } from './transport.js';
import { localInput, runLocally } from './local.js';

export interface WorkerJob {
  id: string;
  input: unknown;
  s3Config?: unknown;
  /** Aborted when the job is cancelled, times out or expires: stop work and return. */
  signal: AbortSignal;
  /** Reports a progress update; clients see it as the job's output while it runs. */
  progress(update: unknown): Promise<void>;
}

export type Handler = (job: WorkerJob) => unknown | Promise<unknown> | AsyncIterable<unknown>;

export interface ServeOptions {
  /** Jobs run at once (default 1). */
  concurrency?: number;
  /** For streaming handlers: the final output is the array of every chunk. */
  returnAggregateStream?: boolean;
  env?: Record<string, string | undefined>;
  /** Stop taking jobs, let running ones finish, then resolve. */
  signal?: AbortSignal;
  /** Local mode: run the handler once on `{input}` and print the result, without Gantry. */
  testInput?: unknown;
  log?: (line: string) => void;
}

interface TakenJob {
  id: string;
  input: unknown;
  s3Config?: unknown;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function serve(handler: Handler, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const input = options.testInput ?? localInput(env, process.argv);
  if (input !== undefined) return runLocally(handler, input);
  await new Worker(handler, readEnvironment(env), options).run();
}

class Worker {
  private readonly transport: Transport;
  private readonly running = new Map<string, AbortController>();
  private readonly concurrency: number;
  private slotFreed: (() => void) | undefined;
  private readonly stopping = new AbortController();
  private readonly log: (line: string) => void;
  private stopChannelDone = false;
  private stopPoll: AbortController | undefined;

  constructor(
    private readonly handler: Handler,
    private readonly env: WorkerEnvironment,
    private readonly options: ServeOptions,
  ) {
    this.transport = new Transport(env.credential);
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.log = options.log ?? (() => undefined);
    options.signal?.addEventListener('abort', () => this.stopping.abort(), { once: true });
  }

  async run(): Promise<void> {
    const pinger = setInterval(() => void this.ping(), this.env.pingIntervalMs);
    void this.ping();
    const stopChannel = this.watchStops();
    try {
      await this.takeLoop();
      while (this.running.size > 0) await new Promise<void>((resolve) => (this.slotFreed = resolve));
    } finally {
      clearInterval(pinger);
      this.stopChannelDone = true;
      this.stopPoll?.abort();
      await stopChannel;
    }
  }

  private async takeLoop(): Promise<void> {
    let backoff = 100;
    while (!this.stopping.signal.aborted) {
      const free = this.concurrency - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        const answer = await this.transport.get(this.env.takeUrl(free, this.running.size > 0), this.stopping.signal);
        backoff = 100;
        if (answer.status === 204) continue;
        if (answer.status === 429) {
          await this.pause(5000);
          continue;
        }
        if (answer.status !== 200) {
          this.log(`job-take answered ${answer.status}`);
          await this.pause(1000);
          continue;
        }
        const jobs = (Array.isArray(answer.body) ? answer.body : [answer.body]) as TakenJob[];
        for (const job of jobs) void this.runJob(job);
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        this.log(`job-take failed: ${errorMessage(error)}`);
        await this.pause(backoff);
        backoff = Math.min(2000, backoff * 2);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.stopping.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }

  private async runJob(job: TakenJob): Promise<void> {
    const controller = new AbortController();
    this.running.set(job.id, controller);
    const post = (url: string, body: unknown) => this.transport.post(url, body).catch((error: unknown) => this.log(`post for ${job.id} failed: ${errorMessage(error)}`));
    try {
      const result = this.handler({
        id: job.id,
        input: job.input,
        ...(job.s3Config === undefined ? {} : { s3Config: job.s3Config }),
        signal: controller.signal,
        progress: async (update) => {
          if (!controller.signal.aborted) await post(this.env.doneUrl(job.id, false), { status: 'IN_PROGRESS', output: update });
        },
      });
      if (isAsyncIterable(result)) {
        const chunks: unknown[] = [];
        for await (const chunk of result) {
          if (controller.signal.aborted) break;
          if (this.options.returnAggregateStream) chunks.push(chunk);
          await post(this.env.streamUrl(job.id), { output: chunk });
        }
        if (!controller.signal.aborted) {
          await post(this.env.doneUrl(job.id, true), this.options.returnAggregateStream ? { output: chunks } : {});
        }
        return;
      }
      const output = await result;
      if (controller.signal.aborted) return;
      if (typeof output === 'object' && output !== null && 'error' in output) {
        const { error, ...rest } = output as { error: unknown };
        await post(this.env.doneUrl(job.id, false), { error: typeof error === 'string' ? error : JSON.stringify(error), ...(Object.keys(rest).length > 0 ? { output: rest } : {}) });
      } else {
        await post(this.env.doneUrl(job.id, false), { output: output === undefined ? null : output });
      }
    } catch (error) {
      if (!controller.signal.aborted) await post(this.env.doneUrl(job.id, false), { error: errorMessage(error) });
    } finally {
      this.running.delete(job.id);
      this.slotFreed?.();
    }
  }

  /** While jobs run, keeps one long-poll on the stop channel and aborts the jobs it names. */
  private async watchStops(): Promise<void> {
    while (!this.stopChannelDone) {
      if (this.running.size === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      this.stopPoll = new AbortController();
      try {
        const answer = await this.transport.get(this.env.stopUrl(), this.stopPoll.signal);
        if (answer.status === 200) {
          for (const id of (answer.body as { jobsToStop?: string[] }).jobsToStop ?? []) this.running.get(id)?.abort();
        }
      } catch {
        if (!this.stopChannelDone) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  private async ping(): Promise<void> {
    const url = this.env.pingUrl([...this.running.keys()]);
    if (!url) return;
    try {
      await this.transport.get(url);
    } catch (error) {
      this.log(`ping failed: ${errorMessage(error)}`);
    }
  }
}
