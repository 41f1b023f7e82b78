// The worker SDK's tests run it against a fake queue server on a real socket that records what the
// SDK sends (URL shapes and parameters, the raw credential, every body form, the stop channel) and
// answers as a test tells it: jobs to hand out, statuses or dropped connections, slow answers,
// with or without Gantry's job-done-batch. `startWorker` starts a fake and a worker on it running
// `testHandler`; `fake`, `stopWorker` and `logs` then name that test's fake queue, the controller
// that stops its worker, and what the worker logged. A file that starts workers calls
// `afterEach(stopWorkerAndQueue)`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type Handler, type ServeOptions, type WorkerJob } from '../../src/worker/index.js';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  auth: string | undefined;
  body: any;
  at: number;
}
type Answer = number | 'drop';

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Just enough of the worker side of the queue API to record what a worker does. */
export class FakeQueue {
  readonly seen: Seen[] = [];
  readonly jobs: Array<{ id: string; input: unknown }> = [];
  readonly stops: string[] = [];
  /** Answers for the next job-take / job-done requests: a status, or 'drop' to cut the connection. */
  readonly takeAnswers: Answer[] = [];
  /** At most this many jobs for the next job-take-batch answers (then as many as asked, while any wait). */
  readonly takeCaps: number[] = [];
  readonly doneAnswers: Answer[] = [];
  /** How long take and stop long-polls are held when there is nothing to hand out. */
  holdMs = 150;
  progressDelayMs = 0;
  /** How long a job's final result (job-done without IN_PROGRESS) waits for its answer. */
  resultDelayMs = 0;
  /** How long a ping waits for its answer. */
  pingDelayMs = 0;
  /** Requests whose connection is still open. */
  open = 0;
  /** Whether it answers Gantry's job-done-batch; otherwise 404, as a RunPod server does. */
  batchResults = false;
  /** Whether job-done-batch hands out jobs when asked (`take`), as Gantry does; older servers ignore it. */
  takesWithResults = false;
  /** Answers for the next job-done-batch requests that ask to take jobs, and the requests that got them. */
  readonly carryAnswers: Answer[] = [];
  readonly failedCarries: Seen[] = [];
  /** The request kind that handed out each job. */
  readonly handedBy = new Map<string, string>();
  url = '';
  private server!: Server;

  static async start(): Promise<FakeQueue> {
    const fake = new FakeQueue();
    fake.server = createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      RUNPOD_WEBHOOK_GET_JOB: `${this.url}/v2/ep/job-take/$ID?runtime=gantry`,
      RUNPOD_WEBHOOK_POST_OUTPUT: `${this.url}/v2/ep/job-done/$RUNPOD_POD_ID/$ID?runtime=gantry`,
      RUNPOD_WEBHOOK_POST_STREAM: `${this.url}/v2/ep/job-stream/$RUNPOD_POD_ID/$ID?runtime=gantry`,
      RUNPOD_WEBHOOK_PING: `${this.url}/v2/ep/ping/$RUNPOD_POD_ID`,
      RUNPOD_PING_INTERVAL: '100',
      RUNPOD_POD_ID: 'w1',
      RUNPOD_AI_API_KEY: 'wk-secret',
      ...extra,
    };
  }

  requests(kind: string, jobId?: string): Seen[] {
    return this.seen.filter((s) => s.path.split('/')[3] === kind && (jobId === undefined || s.path.endsWith(`/${jobId}`)));
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handOut(kind: string, count: number): FakeQueue['jobs'] {
    const jobs = this.jobs.splice(0, count);
    for (const job of jobs) this.handedBy.set(job.id, kind);
    return jobs;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const url = new URL(req.url!, this.url);
    const seen: Seen = {
      method: req.method!,
      path: url.pathname,
      query: url.searchParams,
      auth: req.headers.authorization,
      body: text ? JSON.parse(text) : undefined,
      at: Date.now(),
    };
    this.seen.push(seen);
    let gone = false;
    this.open++;
    res.on('close', () => {
      gone = true;
      this.open--;
    });
    const kind = url.pathname.split('/')[3];
    const answer = (status: Answer, body?: unknown): void => {
      if (status === 'drop') req.socket.destroy();
      else res.writeHead(status).end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (kind === 'job-take' || kind === 'job-take-batch') {
      const forced = this.takeAnswers.shift();
      if (forced !== undefined) return answer(forced);
      const until = Date.now() + this.holdMs;
      while (this.jobs.length === 0 && Date.now() < until && !gone) await sleep(10);
      if (gone || this.jobs.length === 0) return answer(204);
      if (kind === 'job-take') return answer(200, this.handOut(kind, 1)[0]);
      const asked = Number(url.searchParams.get('batch_size'));
      return answer(200, this.handOut(kind, Math.min(asked, this.takeCaps.shift() ?? asked)));
    }
    if (kind === 'job-stop') {
      const until = Date.now() + this.holdMs;
      while (this.stops.length === 0 && Date.now() < until && !gone) await sleep(10);
      return gone || this.stops.length === 0 ? answer(204) : answer(200, { jobsToStop: this.stops.splice(0) });
    }
    if (kind === 'job-done-batch') {
      if (!this.batchResults) return answer(404, {});
      const take = url.searchParams.get('take');
      const forced = take ? this.carryAnswers.shift() : undefined;
      if (forced !== undefined) return (this.failedCarries.push(seen), answer(forced));
      const results = (seen.body.results as { id: string }[]).map(({ id }) => ({ id, outcome: 'accepted' }));
      if (!take || !this.takesWithResults) return answer(200, { results });
      return answer(200, { results, jobs: this.handOut(kind, Number(take)) });
    }
    // The answer is chosen as the post arrives: a test that sees the post may queue the next one's.
    const forced = kind === 'job-done' ? this.doneAnswers.shift() : undefined;
    if (kind === 'job-done') await sleep(seen.body?.status === 'IN_PROGRESS' ? this.progressDelayMs : this.resultDelayMs);
    if (kind === 'ping') await sleep(this.pingDelayMs);
    return answer(forced ?? 200, {});
  }
}

export async function until<T>(find: () => T | undefined | false, what: string, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface TestInput {
  result?: unknown;
  fail?: string;
  sleepMs?: number;
  ignoreStop?: boolean;
  stream?: number;
  progress?: number;
}
export const aborted: string[] = [];

/** Returns `result`, throws `fail`, sleeps (stopping early on abort unless `ignoreStop`), streams `{i}` chunks. */
export const testHandler: Handler = async (job: WorkerJob) => {
  const input = job.input as TestInput;
  job.signal.addEventListener('abort', () => aborted.push(job.id));
  if (input.stream !== undefined)
    return (async function* () {
      for (let i = 0; i < input.stream!; i++) yield { i };
    })();
  for (let step = 1; step <= (input.progress ?? 0); step++) void job.progress({ step });
  if (input.sleepMs) await sleep(input.sleepMs, input.ignoreStop ? undefined : job.signal);
  if (input.fail) throw new Error(input.fail);
  return input.result;
};

export let fake: FakeQueue;
export let stopWorker: AbortController;
let served: Promise<void> | undefined;
export let logs: string[];

/** For afterEach: lets the worker wind down while the fake still answers, so nothing leaks into the next test. */
export async function stopWorkerAndQueue(): Promise<void> {
  stopWorker?.abort();
  await served;
  served = undefined;
  await fake?.close();
}

/** Starts a fake queue and a worker on it; `served` settles when serve() does. */
export async function startWorker(options: ServeOptions = {}, waitingJobs: FakeQueue['jobs'] = []): Promise<{ served: Promise<void> }> {
  fake = await FakeQueue.start();
  fake.jobs.push(...waitingJobs);
  stopWorker = new AbortController();
  logs = [];
  served = serve(testHandler, { env: fake.env(), signal: stopWorker.signal, log: (line) => logs.push(line), ...options });
  return { served };
}

export const doneBodies = (jobId: string) => fake.requests('job-done', jobId).map((s) => s.body);
