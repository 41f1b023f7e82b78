// Results finished close together go to a Gantry server in one request (job-done-batch) instead
// of one each: while other handlers still run, a result waits at most `windowMs` for theirs; once
// none runs, nothing else can join, so the batch leaves at the end of this turn. A server without
// the route (a RunPod one answers 404) gets every result on job-done from then on, as does a batch
// the server refuses whole. Each result still settles on its own outcome.
import type { Transport } from './transport.js';

export interface PendingResult {
  jobId: string;
  isStream: boolean;
  body: object;
}

interface Waiting extends PendingResult {
  settle(outcome: string | undefined): void;
}

const MAX_PER_BATCH = 64;

export class ResultBatcher {
  private waiting: Waiting[] = [];
  /** The pending flush: a timer while handlers run, an immediate once none does. */
  private scheduled: { kind: 'window'; timer: NodeJS.Timeout } | { kind: 'turn' } | undefined;
  /** Cleared for good once the server shows it has no batch route. */
  private batchUrl: string;
  /** Cleared for good once the server answers a batch with a take without jobs (it predates `take`). */
  private takesWithResults = true;

  constructor(
    private readonly transport: Transport,
    batchUrl: string,
    /** The single route of one job's result. */
    private readonly doneUrl: (jobId: string, isStream: boolean) => string,
    /** Whether handlers whose results could join this batch are still running. */
    private readonly handlersRunning: () => boolean = () => false,
    private readonly windowMs = 2,
  ) {
    this.batchUrl = batchUrl;
  }

  /** Posts a result; answers undefined once the server took it, or why it did not. */
  post(result: PendingResult): Promise<string | undefined> {
    // A streamed job's final post carries isStream=true, which the batch route has no place for.
    if (!this.batchUrl || result.isStream) return this.single(result);
    return new Promise((settle) => {
      this.waiting.push({ ...result, settle });
      if (this.waiting.length >= MAX_PER_BATCH) return void this.flush();
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled?.kind === 'turn') return;
    if (this.handlersRunning()) {
      if (!this.scheduled) this.scheduled = { kind: 'window', timer: setTimeout(() => void this.flush(), this.windowMs) };
      return;
    }
    if (this.scheduled) clearTimeout(this.scheduled.timer);
    this.scheduled = { kind: 'turn' };
    setImmediate(() => void this.flush());
  }

  /**
   * Sends the waiting results and takes up to `size` jobs in one exchange (job-done-batch with
   * `take`). Answers the jobs taken, or undefined when no such exchange happened: no result waits,
   * the server does not take that way, or the exchange failed; the results then go their usual way.
   */
  async sendWithTake(size: number): Promise<unknown[] | undefined> {
    if (!this.batchUrl || !this.takesWithResults || this.waiting.length === 0) return undefined;
    const batch = this.waiting.splice(0, MAX_PER_BATCH);
    if (this.waiting.length === 0 && this.scheduled?.kind === 'window') {
      clearTimeout(this.scheduled.timer);
      this.scheduled = undefined;
    }
    const url = `${this.batchUrl}${this.batchUrl.includes('?') ? '&' : '?'}take=${size}`;
    let answer;
    try {
      // Never retried: a lost answer may have handed out jobs, and asking again would take more.
      answer = await this.transport.postOnce(url, JSON.stringify(this.batchBody(batch)));
    } catch {
      answer = undefined;
    }
    if (!answer || answer.status !== 200 || !this.settle(batch, answer.body)) {
      // The usual flush sends them again, and learns from a 404 that the server has no batch route.
      this.waiting.unshift(...batch);
      this.schedule();
      return undefined;
    }
    const jobs = (answer.body as { jobs?: unknown }).jobs;
    if (Array.isArray(jobs)) return jobs;
    this.takesWithResults = false;
    return undefined;
  }

  private async flush(): Promise<void> {
    if (this.scheduled?.kind === 'window') clearTimeout(this.scheduled.timer);
    this.scheduled = undefined;
    const batch = this.waiting.splice(0, MAX_PER_BATCH);
    if (this.waiting.length > 0) this.schedule();
    if (batch.length === 0) return;
    if (batch.length === 1 || !this.batchUrl) return void Promise.all(batch.map(async (r) => r.settle(await this.single(r))));
    let answer;
    try {
      answer = await this.transport.postForAnswer(this.batchUrl, this.batchBody(batch));
    } catch (error) {
      const reason = `job-done-batch failed after retries: ${error instanceof Error ? error.message : String(error)}`;
      return batch.forEach((r) => r.settle(reason));
    }
    if (answer.status === 200 && this.settle(batch, answer.body)) return;
    // No batch route here (404, 405) or the batch refused whole (400, 413): one by one, as RunPod takes them.
    if (answer.status === 404 || answer.status === 405) this.batchUrl = '';
    return void Promise.all(batch.map(async (r) => r.settle(await this.single(r))));
  }

  private batchBody(batch: Waiting[]): object {
    return { results: batch.map((r) => ({ id: r.jobId, ...r.body })) };
  }

  /** Settles each result on its outcome in the answer; false (nothing settled) when it has none per result. */
  private settle(batch: Waiting[], body: unknown): boolean {
    const outcomes = (body as { results?: { outcome?: string; detail?: string }[] } | undefined)?.results;
    if (!Array.isArray(outcomes) || outcomes.length !== batch.length) return false;
    batch.forEach((r, i) => {
      const { outcome, detail } = outcomes[i]!;
      r.settle(outcome === 'accepted' || outcome === 'duplicate' ? undefined : `job-done-batch rejected it: ${detail ?? outcome}`);
    });
    return true;
  }

  private async single(result: PendingResult): Promise<string | undefined> {
    const url = this.doneUrl(result.jobId, result.isStream);
    try {
      const status = await this.transport.post(url, result.body);
      return status < 300 ? undefined : `${new URL(url).pathname} answered ${status}`;
    } catch (error) {
      return `${new URL(url).pathname} failed after retries: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
