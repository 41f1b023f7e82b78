// A worker that speaks the worker protocol directly (job-take long-poll, job-done), so a scenario
// knows exactly which job each worker executed and when. It survives a server that goes away:
// connection errors and 503s are retried, including the result of a job taken before a crash.
import { request } from './http.js';
import { sleep, type LoopGuard } from './bounded.js';

/** How many times each job was handed to a worker, across all workers of a scenario. */
export class ExecutionLog {
  private readonly executions = new Map<string, number>();

  record(jobId: string): void {
    this.executions.set(jobId, (this.executions.get(jobId) ?? 0) + 1);
  }

  timesExecuted(jobId: string): number {
    return this.executions.get(jobId) ?? 0;
  }

  /** Executions beyond the first, summed over jobs: what at-least-once delivery repeated. */
  get duplicated(): number {
    let extra = 0;
    for (const count of this.executions.values()) extra += Math.max(0, count - 1);
    return extra;
  }

  get jobsExecuted(): number {
    return this.executions.size;
  }
}

export interface ProtocolWorkerOptions {
  /** The server to call; read before every request so a scenario can point the worker elsewhere. */
  target: () => string;
  endpointId: string;
  workerId: string;
  credential: string;
  log: ExecutionLog;
  guard: LoopGuard;
  /** Time a job "runs" between take and done, so jobs are in progress when something is killed. */
  workMs?: number;
  /** How long a take long-poll may stay open before the client gives up on it. */
  takeTimeoutMs?: number;
}

const RETRY_PAUSE_MS = 100;
/** A result is retried this many times (at RETRY_PAUSE_MS) before the lease is left to expire. */
const MAX_DONE_ATTEMPTS = 150;

export class ProtocolWorker {
  private halted = false;
  private readonly inFlight = new AbortController();
  connectionErrors = 0;
  resultsDelivered = 0;

  constructor(private readonly options: ProtocolWorkerOptions) {}

  /** Dies like a process whose host is gone: stops at once and never reports what it held. */
  halt(): void {
    this.halted = true;
    this.inFlight.abort();
  }

  private get base(): string {
    return `${this.options.target()}/v2/${this.options.endpointId}`;
  }

  private get running(): boolean {
    return !this.halted && this.options.guard.running;
  }

  async run(): Promise<void> {
    const { workerId, credential } = this.options;
    while (this.running) {
      const take = await request(`${this.base}/job-take/${workerId}`, {
        headers: { authorization: credential },
        timeoutMs: this.options.takeTimeoutMs ?? 10_000,
        signal: this.inFlight.signal,
      });
      if (!this.running) return;
      if (take.status !== 200 || typeof take.json?.id !== 'string') {
        if (take.status === 0) this.connectionErrors++;
        // 204 is an empty long-poll: ask again at once. Anything else: the server is struggling.
        if (take.status !== 204) await sleep(RETRY_PAUSE_MS);
        continue;
      }
      const jobId: string = take.json.id;
      this.options.log.record(jobId);
      if (this.options.workMs) await sleep(this.options.workMs);
      await this.deliver(jobId, take.json.input);
    }
  }

  private async deliver(jobId: string, input: unknown): Promise<void> {
    const body = JSON.stringify({ output: { echoed: input } });
    for (let attempt = 0; attempt < MAX_DONE_ATTEMPTS && this.running; attempt++) {
      const done = await request(`${this.base}/job-done/${this.options.workerId}/${jobId}`, {
        method: 'POST',
        headers: { authorization: this.options.credential, 'content-type': 'application/json' },
        body,
        timeoutMs: 10_000,
        signal: this.inFlight.signal,
      });
      if (done.status >= 200 && done.status < 300) {
        this.resultsDelivered++;
        return;
      }
      if (done.status === 0) this.connectionErrors++;
      // A 4xx will not change on retry (e.g. the job was requeued to another worker meanwhile).
      if (done.status >= 400 && done.status < 500) return;
      await sleep(RETRY_PAUSE_MS);
    }
  }
}
