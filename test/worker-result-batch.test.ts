// Gantry's batched result route (job-done-batch) over a real socket, and the worker SDK using it
// from a real worker process: every result gets its own outcome, a repeat is harmless, a result
// for a job this worker does not hold is refused without touching the job or the other items.
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

test('the worker SDK in a real worker process completes jobs that finish together, their results batched', async () => {
  const credential = await g.services.workerCredentials.create(g.endpointId);
  const env = {
    ...workerEnvironment(g.services.config, g.endpointId, credential, 'sdk-batch'),
    RUNPOD_PING_INTERVAL: '200',
    WORKER_CONCURRENCY: '8',
    PATH: process.env.PATH ?? '',
  };
  const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => run({ echo: { i } })));
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  for (const [i, id] of ids.entries()) {
    const final = (await g.queue('GET', `/status-sync/${id}?wait=20000`)).json;
    assert.deepEqual([final.status, final.output], ['COMPLETED', { i }], stderr);
  }
  assert.doesNotMatch(stderr, /report is lost/);
});
