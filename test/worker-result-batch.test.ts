// Gantry's batched result route (job-done-batch) over a real socket, and the worker SDK using it
// from a real worker process: every result gets its own outcome, a repeat is harmless, a result
// for a job this worker does not hold is refused without touching the job or the other items;
// with `take`, the same answer hands out the next jobs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { startLive, type Live } from './support/live.js';
import { workerEnvironment } from '../src/runtime/worker-env.js';

let g: Live;
const children: ChildProcess[] = [];
before(async () => {
  g = await startLive({ takeWaitMs: '1000' });
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await g.close();
});

const run = async (input: Record<string, unknown> = {}) => (await g.queue('POST', '/run', { input })).json.id as string;
const status = async (id: string) => (await g.queue('GET', `/status/${id}`)).json;
const takeAll = async (worker: string, count: number) =>
  (await g.worker('GET', `/job-take-batch/${worker}?batch_size=${count}&job_in_progress=0`)).json as { id: string }[];
const batch = (worker: string, body: unknown) =>
  g.worker('POST', `/job-done-batch/${worker}?gpu=none`, typeof body === 'string' ? body : JSON.stringify(body));

test('a batch records each valid result and answers an outcome per item, invalid ones included', async () => {
  const [a, b, c] = [await run({ n: 1 }), await run({ n: 2 }), await run({ n: 3 })];
  const taken = (await takeAll('wb1', 3)).map((j) => j.id).sort();
  assert.deepEqual(taken, [a, b, c].sort());
  const answer = await batch('wb1', {
    results: [
      { id: a, output: { sum: 1 } },
      { id: b, error: 'model not loaded' },
      { output: 'no id' },
      'not an object',
      { id: c, status: 'IN_PROGRESS', output: 1 },
    ],
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(
    answer.json.results.map((r: { outcome: string }) => r.outcome),
    ['accepted', 'accepted', 'rejected', 'rejected', 'rejected'],
  );
  assert.match(answer.json.results[2].detail, /no job id/);
  assert.deepEqual([(await status(a)).status, (await status(a)).output], ['COMPLETED', { sum: 1 }]);
  assert.deepEqual([(await status(b)).status, (await status(b)).error], ['FAILED', 'model not loaded']);
  assert.equal((await status(c)).status, 'IN_PROGRESS', 'a refused item leaves its job as it was');
});

test('a repeated batch is harmless: results already recorded are duplicates and stay as first reported', async () => {
  const id = await run();
  await takeAll('wb2', 1);
  const first = await batch('wb2', { results: [{ id, output: 'first' }] });
  assert.equal(first.json.results[0].outcome, 'accepted');
  const again = await batch('wb2', { results: [{ id, output: 'second' }] });
  assert.equal(again.json.results[0].outcome, 'duplicate');
  assert.equal((await status(id)).output, 'first');
});

test('a job named twice in one batch keeps its first result; the second item is a duplicate', async () => {
  const [a, b] = [await run(), await run()];
  await takeAll('wb5', 2);
  const answer = await batch('wb5', {
    results: [
      { id: a, output: 'first' },
      { id: b, output: 'other' },
      { id: a, output: 'second' },
    ],
  });
  assert.deepEqual(
    answer.json.results.map((r: { id: string; outcome: string }) => [r.id, r.outcome]),
    [
      [a, 'accepted'],
      [b, 'accepted'],
      [a, 'duplicate'],
    ],
  );
  assert.deepEqual([(await status(a)).output, (await status(b)).output], ['first', 'other']);
});

test("a result for another worker's job, or for no job of the endpoint, is rejected alone", async () => {
  const [mine, theirs] = [await run({ who: 'mine' }), await run({ who: 'theirs' })];
  const [forMine] = await takeAll('wb3', 1);
  const [forThem] = await takeAll('wb4', 1);
  assert.deepEqual([forMine!.id, forThem!.id].sort(), [mine, theirs].sort());
  const answer = await batch('wb3', {
    results: [
      { id: forThem!.id, output: 'stolen' },
      { id: 'no-such-job', output: 1 },
      { id: forMine!.id, output: 'ok' },
    ],
  });
  assert.deepEqual(
    answer.json.results.map((r: { outcome: string }) => r.outcome),
    ['rejected', 'rejected', 'accepted'],
  );
  assert.match(answer.json.results[0].detail, /not held by this worker/);
  assert.equal((await status(forThem!.id)).status, 'IN_PROGRESS', "the other worker's job is untouched");
  assert.equal((await status(forMine!.id)).status, 'COMPLETED');
});

test('a body that is not a batch is refused whole with a problem', async () => {
  for (const body of [
    '{"results": "no"}',
    '{"results": []}',
    'not json',
    JSON.stringify({ results: Array.from({ length: 65 }, (_, i) => ({ id: `j${i}` })) }),
  ]) {
    const answer = await batch('wb5', body);
    assert.equal(answer.status, 400, body.slice(0, 40));
    assert.equal(typeof answer.json.detail, 'string');
  }
});

const takeWith = (worker: string, take: number | string, body: unknown) =>
  g.worker('POST', `/job-done-batch/${worker}?gpu=none&take=${take}`, JSON.stringify(body));

test('a batch with take records its results, then hands this worker queued jobs in the same answer', async () => {
  const [a, b] = [await run({ n: 1 }), await run({ n: 2 })];
  await takeAll('wt1', 2);
  const queued = [await run({ n: 3 }), await run({ n: 4 }), await run({ n: 5 })];
  const answer = await takeWith('wt1', 2, {
    results: [
      { id: a, output: 'a' },
      { id: b, error: 'b failed' },
    ],
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(
    answer.json.results.map((r: { outcome: string }) => r.outcome),
    ['accepted', 'accepted'],
  );
  assert.deepEqual([(await status(a)).status, (await status(b)).status], ['COMPLETED', 'FAILED']);
  const handed = answer.json.jobs as { id: string; input: { n: number } }[];
  assert.deepEqual(
    handed.map((j) => j.input.n),
    [3, 4],
    'the oldest queued jobs, no more than asked for',
  );
  for (const job of handed) assert.equal((await status(job.id)).status, 'IN_PROGRESS');
  assert.equal((await status(queued[2]!)).status, 'IN_QUEUE');
  const theirs = await batch('wt1', { results: handed.map((j) => ({ id: j.id, output: j.input.n })) });
  assert.deepEqual(
    theirs.json.results.map((r: { outcome: string }) => r.outcome),
    ['accepted', 'accepted'],
    'the jobs handed out are held by this worker',
  );
  await takeAll('wt1-cleanup', 1);
});

test('a batch with a bad take, or a body refused whole, records nothing and takes nothing', async () => {
  const id = await run();
  await takeAll('wt2', 1);
  const waiting = await run();
  for (const take of [0, 65, 'two']) {
    const answer = await takeWith('wt2', take, { results: [{ id, output: 'x' }] });
    assert.equal(answer.status, 400, String(take));
    assert.match(JSON.stringify(answer.json), /take/, 'the problem names the parameter');
  }
  const refused = await takeWith('wt2', 1, { results: 'no' });
  assert.equal(refused.status, 400);
  assert.deepEqual([(await status(id)).status, (await status(waiting)).status], ['IN_PROGRESS', 'IN_QUEUE']);
  await batch('wt2', { results: [{ id, output: 'x' }] });
  await takeAll('wt2', 1);
});

test('a batch with take whose results fail to be written hands the jobs it took back to the queue', async () => {
  const id = await run();
  await takeAll('wt4', 1);
  const queued = [await run(), await run()];
  const jobs = g.services.store.jobs;
  const complete = jobs.complete.bind(jobs);
  jobs.complete = () => Promise.reject(new Error('disk full'));
  let answer;
  try {
    answer = await takeWith('wt4', 2, { results: [{ id, output: 'x' }] });
  } finally {
    jobs.complete = complete;
  }
  assert.equal(answer.status, 500);
  assert.deepEqual(
    [(await status(id)).status, ...(await Promise.all(queued.map(async (q) => (await status(q)).status)))],
    ['IN_PROGRESS', 'IN_QUEUE', 'IN_QUEUE'],
    'nothing recorded, and the jobs taken beside the results are queued again',
  );
  const again = await batch('wt4', { results: [{ id, output: 'x' }] });
  assert.equal(again.json.results[0].outcome, 'accepted', 'the worker posts the same results again');
  const listed = await fetch(`${g.url}/v2/serverless/${g.endpointId}/workers`, { headers: { authorization: `Bearer ${g.adminKey}` } });
  const { workers } = (await listed.json()) as { workers: { id: string; status: string }[] };
  assert.equal(
    workers.find((w) => w.id === 'wt4')?.status,
    'IDLE',
    'the worker holds nothing now: the jobs handed back are not counted as its',
  );
  assert.deepEqual((await takeAll('wt4', 2)).map((j) => j.id).sort(), [...queued].sort());
  await batch('wt4', { results: queued.map((q) => ({ id: q, output: 'y' })) });
});

test('a batch with take answers at once on an empty queue: the worker is not held by a long-poll', { timeout: 20_000 }, async () => {
  // A take here would wait 80 s for a job; the test would time out if the batch did.
  const patient = await startLive({ takeWaitMs: '80000' });
  try {
    await patient.queue('POST', '/run', { input: {} });
    const [job] = (await patient.worker('GET', '/job-take-batch/wt3?batch_size=1')).json as { id: string }[];
    const answer = await patient.worker('POST', '/job-done-batch/wt3?take=4', JSON.stringify({ results: [{ id: job!.id, output: 1 }] }));
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, { results: [{ id: job!.id, outcome: 'accepted' }], jobs: [] });
  } finally {
    await patient.close();
  }
});

/** Queues `count` echo jobs on `live`, starts the example worker with `concurrency`, and checks every result. */
async function echoWorkerCompletes(live: Live, workerId: string, concurrency: number, count: number): Promise<string> {
  const credential = await live.services.workerCredentials.create(live.endpointId);
  const env = {
    ...workerEnvironment(live.services.config, live.endpointId, credential, workerId),
    RUNPOD_PING_INTERVAL: '200',
    WORKER_CONCURRENCY: String(concurrency),
    PATH: process.env.PATH ?? '',
  };
  const ids = await Promise.all(
    Array.from({ length: count }, async (_, i) => (await live.queue('POST', '/run', { input: { echo: { i } } })).json.id),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  for (const [i, id] of ids.entries()) {
    const final = (await live.queue('GET', `/status-sync/${id}?wait=20000`)).json;
    assert.deepEqual([final.status, final.output], ['COMPLETED', { i }], stderr);
  }
  return stderr;
}

test('the worker SDK in a real worker process completes jobs that finish together, their results batched', async () => {
  assert.doesNotMatch(await echoWorkerCompletes(g, 'sdk-batch', 8, 24), /report is lost/);
});

test('a worker with more slots than one take may hand out still gets jobs: its takes ask for 64 at most', async () => {
  // A server of its own, so no other test's worker takes these jobs.
  const own = await startLive();
  try {
    assert.doesNotMatch(await echoWorkerCompletes(own, 'sdk-wide', 100, 150), /answered 400|report is lost/);
  } finally {
    children.pop()?.kill('SIGKILL');
    await own.close();
  }
});
