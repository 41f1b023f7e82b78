// The worker SDK against a fake queue server on a real socket that records what the SDK sends:
// URL shapes and parameters, the raw credential, every body form, the stop channel, retries,
// batch takes, takes that carry results, graceful stop, local mode and environment checks.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { readEnvironment, serve, WorkerConfigError, type Handler, type ServeOptions, type WorkerJob } from '../src/worker/index.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  auth: string | undefined;
  body: any;
  at: number;
}
type Answer = number | 'drop';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Just enough of the worker side of the queue API to record what a worker does. */
class FakeQueue {
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
    res.on('close', () => (gone = true));
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
    return answer(forced ?? 200, {});
  }
}

async function until<T>(find: () => T | undefined | false, what: string, ms = 3000): Promise<T> {
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
const aborted: string[] = [];

/** Returns `result`, throws `fail`, sleeps (stopping early on abort unless `ignoreStop`), streams `{i}` chunks. */
const testHandler: Handler = async (job: WorkerJob) => {
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

let fake: FakeQueue;
let stopWorker: AbortController;
let served: Promise<void> | undefined;
let logs: string[];
afterEach(async () => {
  // Let the worker wind down while the fake still answers, so nothing leaks into the next test.
  stopWorker?.abort();
  await served;
  served = undefined;
  await fake?.close();
});

/** Starts a fake queue and a worker on it; `served` settles when serve() does. */
async function startWorker(options: ServeOptions = {}, waitingJobs: FakeQueue['jobs'] = []): Promise<{ served: Promise<void> }> {
  fake = await FakeQueue.start();
  fake.jobs.push(...waitingJobs);
  stopWorker = new AbortController();
  logs = [];
  served = serve(testHandler, { env: fake.env(), signal: stopWorker.signal, log: (line) => logs.push(line), ...options });
  return { served };
}

const doneBodies = (jobId: string) => fake.requests('job-done', jobId).map((s) => s.body);

test('a job is taken and its output posted, on RunPod URL shapes with the raw credential', async () => {
  await startWorker();
  fake.jobs.push({ id: 'j1', input: { result: { a: 1 } } });
  const [done] = await until(() => fake.requests('job-done', 'j1').length > 0 && fake.requests('job-done', 'j1'), 'the result');
  const take = fake.requests('job-take')[0]!;
  assert.equal(take.path, '/v2/ep/job-take/w1');
  assert.deepEqual(
    [...take.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '0'],
    ],
  );
  assert.equal(done!.path, '/v2/ep/job-done/w1/j1');
  assert.deepEqual(
    [...done!.query],
    [
      ['runtime', 'gantry'],
      ['isStream', 'false'],
    ],
  );
  assert.deepEqual(done!.body, { output: { a: 1 } });
  assert.deepEqual([...new Set(fake.seen.map((s) => s.auth))], ['wk-secret'], 'no Bearer prefix, on every request');
});

test('a slot frees when its handler returns: the next job runs while the last result is still on its way', async () => {
  await startWorker();
  fake.resultDelayMs = 3000;
  fake.jobs.push({ id: 'first', input: { result: 1 } }, { id: 'second', input: { result: 2 } });
  const first = await until(() => fake.requests('job-done', 'first')[0], "the first job's result");
  const second = await until(() => fake.requests('job-done', 'second')[0], "the second job's result", 2500);
  assert.ok(second.at - first.at < 2500, 'with one slot, the second job ran before the first result was answered');
  // Both still count as held: a ping names them until their results are answered.
  await until(() => fake.requests('ping').some((p) => p.query.get('job_id') === 'first,second'), 'a ping naming both');
});

test('results finished together go in one job-done-batch where the server has it, one job-done each where not', async () => {
  const together = Array.from({ length: 4 }, (_, i) => ({ id: `t${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.jobs.push(...together);
  const [posted] = await until(() => fake.requests('job-done-batch').length > 0 && fake.requests('job-done-batch'), 'a result batch');
  assert.equal(posted!.path, '/v2/ep/job-done-batch/w1');
  assert.equal(posted!.query.get('runtime'), 'gantry');
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 4, 'all four results');
  assert.deepEqual(
    fake
      .requests('job-done-batch')
      .flatMap((s) => s.body.results)
      .sort((a, b) => a.output - b.output),
    together.map(({ id }, i) => ({ id, output: i })),
  );
  assert.equal(fake.requests('job-done').length, 0);

  fake.batchResults = false;
  fake.jobs.push(...together.map((job) => ({ ...job, id: `r${job.id}` })));
  await until(() => together.every((job) => doneBodies(`r${job.id}`).length === 1), 'each result on job-done after a 404');
  assert.deepEqual(logs, [], 'nothing lost');
});

test('on a server that takes with results, the next jobs come back with the last results: one exchange per cycle', async () => {
  const backlog = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.jobs.push(...backlog);
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 12, 'all twelve results');
  assert.deepEqual(
    backlog.map(({ id }) => fake.handedBy.get(id)),
    [...Array(4).fill('job-take-batch'), ...Array(8).fill('job-done-batch')],
    'after the first take, each batch of jobs came back with the results of the one before',
  );
  const carrying = fake.requests('job-done-batch').filter((s) => s.query.get('take'));
  assert.deepEqual(
    carrying.slice(0, 2).map((s) => [s.query.get('take'), s.body.results.length]),
    [
      ['4', 4],
      ['4', 4],
    ],
  );
  assert.equal(fake.requests('job-done').length, 0);
  assert.deepEqual(logs, [], 'every result accepted once');
});

test('a take that brings fewer jobs than slots: the next take still waits for their results and carries them', async () => {
  const backlog = Array.from({ length: 13 }, (_, i) => ({ id: `s${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.takeCaps.push(1);
  fake.jobs.push(...backlog);
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 13, 'all thirteen results');
  assert.deepEqual(
    backlog.map(({ id }) => fake.handedBy.get(id)),
    ['job-take-batch', ...Array(12).fill('job-done-batch')],
    'after the short take, every job came back with the results of the ones before',
  );
  assert.deepEqual(
    fake
      .requests('job-done-batch')
      .filter((s) => s.query.get('take'))
      .map((s) => [s.query.get('take'), s.body.results.length]),
    [
      ['4', 1],
      ['4', 4],
      ['4', 4],
      ['4', 4],
    ],
    'one exchange per cycle, each asking for every slot',
  );
  assert.deepEqual(logs, []);
});

test('a take with results that fails sends those results again without taking, and jobs are taken the usual way', async () => {
  await startWorker({ concurrency: 2 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.carryAnswers.push(500, 'drop');
  fake.jobs.push(...['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map((id) => ({ id, input: { result: id } })));
  const ids = (posts: Seen[]) => posts.flatMap((s) => s.body.results.map((r: { id: string }) => r.id as string));
  const answered = () => ids(fake.requests('job-done-batch').filter((s) => !fake.failedCarries.includes(s)));
  await until(() => answered().length === 6, 'every result answered');
  const failed = ids(fake.failedCarries);
  const resent = ids(fake.requests('job-done-batch').filter((s) => !s.query.get('take')));
  assert.equal(fake.failedCarries.length, 2);
  assert.deepEqual(
    failed.filter((id) => !resent.includes(id)),
    [],
    'the results of the failed exchanges went again on their own, none lost',
  );
  assert.ok(
    [...fake.handedBy.values()].some((kind) => kind.startsWith('job-take')),
    'jobs were taken the usual way meanwhile',
  );
  await until(() => logs.length === 0 && fake.requests('ping').some((p) => !p.query.has('job_id')), 'the worker idle');
  assert.deepEqual(logs, []);
});

test('a server that ignores take gets the results once and is asked with job-take from then on', async () => {
  await startWorker({ concurrency: 2 });
  fake.batchResults = true;
  fake.jobs.push(...['o1', 'o2', 'o3', 'o4', 'o5', 'o6'].map((id) => ({ id, input: { result: id } })));
  await until(() => fake.jobs.length === 0 && fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 6, 'every result');
  assert.equal(fake.requests('job-done-batch').filter((s) => s.query.get('take')).length, 1, 'asked once');
  assert.ok([...fake.handedBy.values()].every((kind) => kind === 'job-take-batch' || kind === 'job-take'));
  assert.deepEqual(logs, []);
});

test('pings every interval: job_id lists the jobs in progress and is absent when idle', async () => {
  await startWorker({ concurrency: 2 });
  fake.jobs.push({ id: 'a', input: { sleepMs: 400 } }, { id: 'b', input: { sleepMs: 400 } });
  const busy = await until(() => fake.requests('ping').find((s) => s.query.get('job_id') === 'a,b'), 'a ping listing both jobs');
  assert.equal(busy.path, '/v2/ep/ping/w1');
  assert.equal(busy.query.get('runpod_version'), 'gantry-worker/1');
  await until(() => doneBodies('b').length > 0, 'both results');
  const idle = await until(() => fake.requests('ping').find((s) => s.at > busy.at && !s.query.has('job_id')), 'an idle ping');
  assert.ok(idle.query.has('runpod_version'));
  const first = fake.requests('ping')[0]!.at;
  assert.ok(fake.requests('ping').filter((s) => s.at - first < 550).length >= 4, 'about one ping per 100 ms');
});

test('a thrown error and an {error} result both post an error; refresh_worker asks for stopPod', async () => {
  await startWorker();
  fake.jobs.push(
    { id: 'thrown', input: { fail: 'model not loaded' } },
    { id: 'returned', input: { result: { error: 'bad prompt' } } },
    { id: 'partial', input: { result: { error: { code: 7 }, detail: 'half done' } } },
    { id: 'recycle', input: { result: { ok: true, refresh_worker: true } } },
  );
  await until(() => doneBodies('recycle').length > 0, 'the last result');
  assert.deepEqual(doneBodies('thrown'), [{ error: 'model not loaded' }]);
  assert.deepEqual(doneBodies('returned'), [{ error: 'bad prompt' }]);
  assert.deepEqual(doneBodies('partial'), [{ error: '{"code":7}', output: { detail: 'half done' } }]);
  assert.deepEqual(doneBodies('recycle'), [{ output: { ok: true }, stopPod: true }]);
});

test('progress updates reach job-done as IN_PROGRESS before the result, even when not awaited', async () => {
  await startWorker();
  fake.progressDelayMs = 60; // slow answers: the result must still wait for the updates before it
  fake.jobs.push({ id: 'p', input: { progress: 2, result: 'done' } });
  await until(() => doneBodies('p').length === 3, 'two updates and the result');
  assert.deepEqual(doneBodies('p'), [
    { status: 'IN_PROGRESS', output: { step: 1 } },
    { status: 'IN_PROGRESS', output: { step: 2 } },
    { output: 'done' },
  ]);
  assert.deepEqual(
    fake.requests('job-done', 'p').map((s) => s.query.get('isStream')),
    ['false', 'false', 'false'],
  );
});

test('a streaming handler posts each chunk in order, then job-done with isStream=true', async () => {
  await startWorker();
  fake.jobs.push({ id: 's', input: { stream: 3 } });
  await until(() => doneBodies('s').length > 0, 'the end of the stream');
  const chunks = fake.requests('job-stream', 's');
  assert.deepEqual(
    chunks.map((s) => s.body),
    [{ output: { i: 0 } }, { output: { i: 1 } }, { output: { i: 2 } }],
  );
  assert.deepEqual(
    chunks.map((s) => [s.path, s.query.get('isStream')]),
    Array(3).fill(['/v2/ep/job-stream/w1/s', 'false']),
  );
  const [done] = fake.requests('job-done', 's');
  assert.deepEqual([done!.query.get('isStream'), done!.body], ['true', {}], 'no output unless aggregated');
  assert.ok(done!.at >= chunks[2]!.at);
});

test('returnAggregateStream makes the chunks the final output', async () => {
  await startWorker({ returnAggregateStream: true });
  fake.jobs.push({ id: 's', input: { stream: 2 } });
  await until(() => doneBodies('s').length > 0, 'the end of the stream');
  assert.deepEqual(doneBodies('s'), [{ output: [{ i: 0 }, { i: 1 }] }]);
  assert.equal(fake.requests('job-stream', 's').length, 2);
});

test('the stop channel aborts the named job, whose result is not posted, and the worker moves on', async () => {
  await startWorker();
  await sleep(250);
  assert.equal(fake.requests('job-stop').length, 0, 'no stop long-poll while idle');
  fake.jobs.push({ id: 'victim', input: { sleepMs: 5000, result: 'too late' } });
  const poll = await until(() => fake.requests('job-stop')[0], 'a stop long-poll while the job runs');
  assert.equal(poll.path, '/v2/ep/job-stop/w1');
  assert.equal(poll.query.get('runtime'), 'gantry');
  fake.stops.push('victim');
  await until(() => aborted.includes('victim'), "the job's signal to abort");
  fake.jobs.push({ id: 'next', input: { result: 'ok' } });
  await until(() => doneBodies('next').length > 0, 'the next job');
  assert.deepEqual(doneBodies('victim'), []);
});

test('a stopped handler that ignores its signal no longer holds the slot, and its result is dropped', async () => {
  await startWorker();
  fake.jobs.push({ id: 'stubborn', input: { sleepMs: 600, ignoreStop: true, result: 'late' } });
  await until(() => fake.requests('job-stop')[0], 'a stop long-poll');
  fake.stops.push('stubborn');
  fake.jobs.push({ id: 'next', input: { result: 'ok' } });
  await until(() => doneBodies('next').length > 0, 'the next job', 500);
  await sleep(700);
  assert.deepEqual(doneBodies('stubborn'), []);
});

test('job-done is retried after a 500 and a dropped connection, but not after a 400', async () => {
  await startWorker();
  fake.doneAnswers.push(500, 'drop');
  fake.jobs.push({ id: 'r', input: { result: 1 } });
  await until(() => doneBodies('r').length === 3, 'two retries');
  assert.deepEqual(doneBodies('r'), [{ output: 1 }, { output: 1 }, { output: 1 }]);
  fake.doneAnswers.push(400);
  fake.jobs.push({ id: 'rejected', input: { result: 2 } });
  await until(() => doneBodies('rejected').length > 0, 'the rejected post');
  await sleep(500);
  assert.equal(doneBodies('rejected').length, 1);
  assert.ok(
    logs.some((line) => line.includes('rejected') && line.includes('400')),
    logs.join('\n'),
  );
});

test('job-take survives a dropped connection and a 503 by asking again', async () => {
  await startWorker();
  fake.takeAnswers.push('drop', 503);
  fake.jobs.push({ id: 'j', input: { result: 'ok' } });
  await until(() => doneBodies('j').length > 0, 'the job, after the failed takes');
  assert.ok(fake.requests('job-take').length >= 3);
});

test('with several free slots the worker takes a batch; with one, a single job while others run', async () => {
  await startWorker({ concurrency: 3 }, [
    { id: 'a', input: { sleepMs: 800 } },
    { id: 'b', input: { sleepMs: 800 } },
  ]);
  const batch = await until(() => fake.requests('job-take-batch')[0], 'a batch take');
  assert.equal(batch.path, '/v2/ep/job-take-batch/w1');
  assert.deepEqual(
    [...batch.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '0'],
      ['batch_size', '3'],
    ],
  );
  const single = await until(() => fake.requests('job-take').find((s) => s.at > batch.at), 'a take for the last free slot');
  assert.deepEqual(
    [...single.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '1'],
    ],
  );
  fake.jobs.push({ id: 'c', input: { sleepMs: 250, result: 'c' } });
  await until(() => fake.requests('ping').some((s) => s.query.get('job_id') === 'a,b,c'), 'all three jobs at once');
  await until(() => doneBodies('c').length > 0, 'the third job');
  assert.equal(doneBodies('a').length, 0, 'the batch jobs are still running');
});

test('aborting `signal` stops taking at once, lets the running job finish and post, then resolves', async () => {
  const { served: stopped } = await startWorker({ concurrency: 2 });
  fake.holdMs = 5000; // the idle slot's long-poll must be cut, not sat out
  fake.jobs.push({ id: 'last', input: { sleepMs: 300, result: 'finished' } });
  await until(() => fake.requests('ping').some((s) => s.query.get('job_id') === 'last'), 'the job to run');
  const stoppedAt = Date.now();
  stopWorker.abort();
  await stopped;
  assert.ok(Date.now() - stoppedAt < 1500, 'the held take did not delay the stop');
  assert.deepEqual(doneBodies('last'), [{ output: 'finished' }]);
  const takes = fake.requests('job-take').length + fake.requests('job-take-batch').length;
  await sleep(300);
  assert.equal(fake.requests('job-take').length + fake.requests('job-take-batch').length, takes, 'no take after the stop');
});

async function captureStdout(run: () => Promise<void>): Promise<string> {
  const original = process.stdout.write;
  let text = '';
  // Only strings are ours: the test runner's own reports are written as buffers.
  process.stdout.write = ((chunk: any, ...rest: any[]) =>
    typeof chunk === 'string' ? ((text += chunk), true) : original.call(process.stdout, chunk, ...rest)) as any;
  try {
    await run();
  } finally {
    process.stdout.write = original;
  }
  return text;
}

test('local mode runs the handler once on the test input and prints the result, with no server', async () => {
  assert.equal(
    await captureStdout(() => serve(testHandler, { env: {}, testInput: { result: { got: 'hi' } } })),
    '{"output":{"got":"hi"}}\n',
  );
  assert.equal(await captureStdout(() => serve(testHandler, { env: {}, testInput: { stream: 2 } })), '{"output":[{"i":0},{"i":1}]}\n');
  const failed = await captureStdout(() => serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"input":{"fail":"broken"}}' } }));
  assert.equal(failed, '{"error":"broken"}\n');
  assert.equal(process.exitCode, 1, 'a failure given from outside is an exit code for scripts');
  process.exitCode = 0;
  await assert.rejects(
    serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"input":' } }),
    /^WorkerConfigError: RUNPOD_TEST_INPUT is not valid JSON/,
  );
  await assert.rejects(
    serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"prompt":"x"}' } }),
    /RUNPOD_TEST_INPUT must be a JSON object of the form \{"input": \.\.\.\}/,
  );
});

test('a missing variable, a template without ? or a bad concurrency is named', async () => {
  const env = { ...new FakeQueue().env(), RUNPOD_WEBHOOK_PING: '' };
  const rejects = (options: ServeOptions, message: RegExp) =>
    assert.rejects(serve(testHandler, options), (e: Error) => e instanceof WorkerConfigError && message.test(e.message));
  await rejects({ env: {} }, /^RUNPOD_WEBHOOK_GET_JOB is not set/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/ep/job-take/$ID' } }, /^RUNPOD_WEBHOOK_GET_JOB must contain '\?'/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_POST_OUTPUT: undefined } as any }, /^RUNPOD_WEBHOOK_POST_OUTPUT is not set/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_POST_STREAM: 'http://h/s/$ID' } }, /^RUNPOD_WEBHOOK_POST_STREAM must contain '\?'/);
  await rejects({ env: { ...env, RUNPOD_AI_API_KEY: '' } }, /^RUNPOD_AI_API_KEY is not set/);
  await rejects({ env: { ...env, RUNPOD_PING_INTERVAL: 'soon' } }, /^RUNPOD_PING_INTERVAL must be a positive number/);
  await rejects({ env, concurrency: 0 }, /^concurrency must be a positive integer/);
});

test('ping URLs that already hold a ? get their parameters with &', () => {
  const e = readEnvironment({ ...new FakeQueue().env(), RUNPOD_WEBHOOK_PING: 'http://h/v2/ep/ping/$RUNPOD_POD_ID?gpu=A100' });
  assert.equal(e.pingUrl(['a', 'b']), 'http://h/v2/ep/ping/w1?gpu=A100&job_id=a,b&runpod_version=gantry-worker%2F1');
  assert.equal(e.pingUrl([]), 'http://h/v2/ep/ping/w1?gpu=A100&runpod_version=gantry-worker%2F1');
});

test('the example worker runs locally from --test_input and prints the result', () => {
  const run = (input: unknown) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts', '--test_input', JSON.stringify({ input })], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
  const echo = run({ echo: { a: 1 } });
  assert.deepEqual([echo.stdout, echo.status], ['{"output":{"a":1}}\n', 0]);
  const fail = run({ fail: 'broken' });
  assert.deepEqual([fail.stdout, fail.status], ['{"error":"broken"}\n', 1]);
  assert.equal(run({ errorObject: 'bad prompt' }).stdout, '{"error":"bad prompt"}\n');
  assert.equal(run({ stream: 2, chunk: 'c' }).stdout, '{"output":[{"i":0,"text":"c"},{"i":1,"text":"c"}]}\n');
  assert.equal(run({ outputBytes: 5 }).stdout, '{"output":"xxxxx"}\n');
});
