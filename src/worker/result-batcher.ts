// Results finished close together go to a Gantry server in one request (job-done-batch) instead
// of one each: a result waits at most one turn of the event loop plus `windowMs` for others. A
// server without the route (a RunPod one answers 404) gets every result on job-done from then on,
// as does a batch the server refuses whole. Each result still settles on its own outcome.
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
  private scheduled = false;
  /** Cleared for good once the server shows it has no batch route. */
  private batchUrl: string;

  constructor(
    private readonly transport: Transport,
    batchUrl: string,
    /** The single route of one job's result. */
    private readonly doneUrl: (jobId: string, isStream: boolean) => string,
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
      if (this.scheduled) return;
      this.scheduled = true;
      setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting.splice(0, MAX_PER_BATCH);
    if (this.waiting.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setTimeout(() => void this.flush(), this.windowMs);
    }
    if (batch.length === 0) return;
    if (batch.length === 1 || !this.batchUrl) return void Promise.all(batch.map(async (r) => r.settle(await this.single(r))));
    let answer;
    try {
      answer = await this.transport.postForAnswer(this.batchUrl, { results: batch.map((r) => ({ id: r.jobId, ...r.body })) });
    } catch (error) {
      const reason = `job-done-batch failed after retries: ${error instanceof Error ? error.message : String(error)}`;
      return batch.forEach((r) => r.settle(reason));
    }
    const outcomes = answer.status === 200 ? (answer.body as { results?: { outcome?: string; detail?: string }[] }).results : undefined;
    if (!Array.isArray(outcomes) || outcomes.length !== batch.length) {
      // No batch route here (404, 405) or the batch refused whole (400, 413): one by one, as RunPod takes them.
      if (answer.status === 404 || answer.status === 405) this.batchUrl = '';
      return void Promise.all(batch.map(async (r) => r.settle(await this.single(r))));
    }
    batch.forEach((r, i) => {
      const { outcome, detail } = outcomes[i]!;
      r.settle(outcome === 'accepted' || outcome === 'duplicate' ? undefined : `job-done-batch rejected it: ${detail ?? outcome}`);
    });
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
