// The stop channel: while jobs run, one long-poll on job-stop; the ids it answers are the jobs the
// server wants stopped (cancelled, timed out, expired).
import type { Transport } from './transport.js';
import { type Notifier, pause } from './timing.js';

/** The server holds the poll well under this; past it the request is given up and made again. */
const POLL_TIMEOUT_MS = 90_000;
const RETRY_DELAY_MS = 1_000;

export interface StoppableJobs {
  readonly size: number;
  get(id: string): { stop(): void } | undefined;
}

export class StopChannel {
  private readonly closing = new AbortController();
  private poll: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly url: string,
    private readonly jobs: StoppableJobs,
    /** Notified whenever a job starts or ends. */
    private readonly changed: Notifier,
    private readonly log: (line: string) => void,
  ) {}

  start(): void {
    this.loop = this.watch();
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.poll?.abort();
    await this.loop;
  }

  private async watch(): Promise<void> {
    while (!this.closing.signal.aborted) {
      if (this.jobs.size === 0) {
        await this.changed.wait(this.closing.signal);
        continue;
      }
      const poll = (this.poll = new AbortController());
      try {
        const answer = await this.transport.get(this.url, POLL_TIMEOUT_MS, poll.signal);
        if (answer.status === 200) this.stopJobs(answer.body);
        else if (answer.status !== 204) {
          this.log(`job-stop answered ${answer.status}`);
          await pause(RETRY_DELAY_MS, this.closing.signal);
        }
      } catch (error) {
        if (poll.signal.aborted) continue;
        this.log(`job-stop failed: ${error instanceof Error ? error.message : String(error)}`);
        await pause(RETRY_DELAY_MS, this.closing.signal);
      }
    }
  }

  private stopJobs(body: unknown): void {
    const ids = (body as { jobsToStop?: unknown } | undefined)?.jobsToStop;
    if (!Array.isArray(ids)) return;
    for (const id of ids) if (typeof id === 'string') this.jobs.get(id)?.stop();
  }
}
