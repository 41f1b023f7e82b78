// The worker loop: take jobs while there is a free slot (long-polled, several at once when more
// than one slot is free; on a Gantry server the results waiting to be sent ride along), run them,
// ping with the jobs in progress, and listen on the stop channel.
import type { WorkerEnvironment } from './environment.js';
import { Transport } from './transport.js';
import { ResultBatcher } from './result-batcher.js';
import { RunningJob, type TakenJob } from './running-job.js';
import { StopChannel } from './stop-channel.js';
import { Notifier, nextTurn, pause } from './timing.js';
import type { Handler } from './types.js';

/** The server answers a take well before this (the RunPod SDKs give up at 90 s too). */
const TAKE_TIMEOUT_MS = 90_000;
const RATE_LIMITED_PAUSE_MS = 5_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;
const PING_TIMEOUT_MS = 10_000;
/** Jobs held at once (running, or with their result on its way) as a multiple of the concurrency. */
const HELD_PER_SLOT = 2;
/** The most jobs one take may ask for (the server refuses a larger batch_size or take). */
const MAX_TAKE = 64;

export interface LoopSettings {
  concurrency: number;
  returnAggregateStream: boolean;
  log(line: string): void;
}

function asTakenJob(value: unknown): TakenJob | undefined {
  if (typeof value !== 'object' || value === null || typeof (value as { id?: unknown }).id !== 'string') return undefined;
  return value as TakenJob;
}

export class WorkerLoop {
  private readonly transport: Transport;
  private readonly results: ResultBatcher;
  /** Jobs this worker holds: their handler runs, or their result is on its way (stops and pings name them). */
  private readonly running = new Map<string, RunningJob>();
  /** Handlers running now: what the concurrency bounds. */
  private handling = 0;
  /** Notified whenever a job starts or ends. */
  private readonly changed = new Notifier();
  private readonly stopping = new AbortController();
  /** Aborted once run() is over: a ping still on its way is cut rather than outliving the worker. */
  private readonly finished = new AbortController();
  private readonly pings = new Set<Promise<void>>();
  private readonly stopChannel: StopChannel;

  constructor(
    private readonly handler: Handler,
    private readonly env: WorkerEnvironment,
    private readonly settings: LoopSettings,
  ) {
    this.transport = new Transport(env.credential);
    this.results = new ResultBatcher(
      this.transport,
      env.doneBatchUrl(),
      (id, isStream) => env.doneUrl(id, isStream),
      () => this.handling > 0,
    );
    this.stopChannel = new StopChannel(this.transport, env.stopUrl(), this.running, this.changed, settings.log);
  }

  /** Stop taking jobs; `run()` resolves once the running ones are over. */
  stop(): void {
    this.stopping.abort();
  }

  async run(): Promise<void> {
    const pinger = setInterval(() => this.ping(), this.env.pingIntervalMs);
    this.ping();
    this.stopChannel.start();
    try {
      await this.takeLoop();
      while (this.running.size > 0) await this.changed.wait();
    } finally {
      clearInterval(pinger);
      this.finished.abort();
      await Promise.all(this.pings);
      await this.stopChannel.close();
    }
  }

  private async takeLoop(): Promise<void> {
    const stopping = this.stopping.signal;
    let backoff = FIRST_BACKOFF_MS;
    const backOff = async () => {
      await pause(backoff, stopping);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    };
    while (!stopping.aborted) {
      // A slot frees when its handler is done, not when the server has its result, so taking the
      // next jobs overlaps posting the last results; results on their way are bounded too.
      const { concurrency } = this.settings;
      const free = Math.min(concurrency - this.handling, HELD_PER_SLOT * concurrency - this.running.size, MAX_TAKE);
      if (free <= 0) {
        await this.changed.wait(stopping);
        // The handlers that end in this turn post their results first, so one take carries them all.
        await nextTurn();
        continue;
      }
      const carried = await this.results.sendWithTake(free);
      if (carried) {
        backoff = FIRST_BACKOFF_MS;
        await this.startAll(carried);
        continue;
      }
      let answer;
      try {
        answer = await this.transport.get(this.env.takeUrl(free, this.running.size > 0), TAKE_TIMEOUT_MS, stopping);
      } catch (error) {
        if (stopping.aborted) return;
        this.settings.log(`job-take failed: ${error instanceof Error ? error.message : String(error)}`);
        await backOff();
        continue;
      }
      if (answer.status === 200) {
        backoff = FIRST_BACKOFF_MS;
        await this.startAll(Array.isArray(answer.body) ? answer.body : [answer.body]);
      } else if (answer.status === 204) {
        backoff = FIRST_BACKOFF_MS;
      } else if (answer.status === 429) {
        this.settings.log('job-take answered 429: waiting before asking again');
        await pause(RATE_LIMITED_PAUSE_MS, stopping);
      } else {
        this.settings.log(`job-take answered ${answer.status}`);
        await backOff();
      }
    }
  }

  /**
   * Starts the jobs of a take, then lets the turn run out, so handlers that are done at once hand
   * over their results and free their slots before the next take, which then carries the results
   * and asks for every slot. Asking at once for the slots a short take left free kept two batches
   * out of step for good (decision 25).
   */
  private async startAll(jobs: unknown[]): Promise<void> {
    for (const job of jobs) this.start(job);
    await nextTurn();
  }

  private start(value: unknown): void {
    const taken = asTakenJob(value);
    if (!taken) return this.settings.log(`job-take answered something that is not a job: ${JSON.stringify(value)}`);
    if (this.running.has(taken.id)) return this.settings.log(`job ${taken.id} was handed out again while it runs here; ignored`);
    const job = new RunningJob(taken, {
      transport: this.transport,
      results: this.results,
      env: this.env,
      returnAggregateStream: this.settings.returnAggregateStream,
      log: this.settings.log,
    });
    this.running.set(taken.id, job);
    this.handling++;
    this.changed.notify();
    const handled = () => {
      this.handling--;
      this.changed.notify();
    };
    void job.run(this.handler, handled).finally(() => {
      // An open stop long-poll is left to end on its own when no job runs any more: cutting it
      // costs its connection, and the next job would open another at once.
      this.running.delete(taken.id);
      this.changed.notify();
    });
  }

  private ping(): void {
    const sent: Promise<void> = this.sendPing().finally(() => this.pings.delete(sent));
    this.pings.add(sent);
  }

  private async sendPing(): Promise<void> {
    const url = this.env.pingUrl([...this.running.keys()]);
    if (!url) return;
    try {
      const answer = await this.transport.get(url, PING_TIMEOUT_MS, this.finished.signal);
      if (answer.status >= 300) this.settings.log(`ping answered ${answer.status}`);
    } catch (error) {
      if (this.finished.signal.aborted) return;
      this.settings.log(`ping failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
