// The endpoint's job list, one job's detail and its series: what a dashboard reads, scoped to
// the caller's account, on a real store and a real socket with a protocol-level worker.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';
import { problem } from './support/harness.js';

let g: Live;
let done: string;
let cancelled: string;
let queued: string;

before(async () => {
  g = await startLive();
  done = (await g.queue('POST', '/run', { input: { prompt: 'first' } })).json.id;
  await g.worker('GET', '/job-take/w1');
  await g.worker('POST', `/job-stream/w1/${done}?isStream=false`, '{"output": {"token": "a"}}');
  await g.worker('POST', `/job-stream/w1/${done}?isStream=false`, '{"output": {"token": "b"}}');
  await g.worker('POST', `/job-done/w1/${done}?isStream=true`, '{}');
  cancelled = (await g.queue('POST', '/run', { input: { prompt: 'second' } })).json.id;
  await g.queue('POST', `/cancel/${cancelled}`);
  queued = (await g.queue('POST', '/run', { input: { prompt: 'third' } })).json.id;
});
after(() => g.close());

test('the job list shows the newest jobs first, with their times, and filters by status', async () => {
  const all = (await g.call('GET', `/v2/serverless/${g.endpointId}/jobs`)).json();
  assert.deepEqual(
    all.jobs.map((j: any) => [j.id, j.status]),
    [
      [queued, 'IN_QUEUE'],
      [cancelled, 'CANCELLED'],
      [done, 'COMPLETED'],
    ],
  );
  assert.equal(all.next, null);
  const completed = all.jobs[2];
  assert.equal(completed.workerId, 'w1');
  assert.ok(completed.delayTime >= 0 && completed.executionTime >= 0);
  const filtered = (await g.call('GET', `/v2/serverless/${g.endpointId}/jobs?status=COMPLETED,CANCELLED`)).json();
  assert.deepEqual(
    filtered.jobs.map((j: any) => j.id),
    [cancelled, done],
  );
});

test('pages follow one another through `next` without repeating a job', async () => {
  const first = (await g.call('GET', `/v2/serverless/${g.endpointId}/jobs?limit=2`)).json();
  assert.equal(first.jobs.length, 2);
  assert.notEqual(first.next, null);
  const second = (await g.call('GET', `/v2/serverless/${g.endpointId}/jobs?limit=2&before=${first.next}`)).json();
  assert.deepEqual(
    second.jobs.map((j: any) => j.id),
    [done],
  );
  assert.equal(second.next, null);
});

test("a job's detail has its input, output and every stream chunk, even ones a client already read", async () => {
  const stream = await g.queue('GET', `/stream/${done}`);
  assert.equal(stream.status, 200);
  const detail = (await g.call('GET', `/v2/serverless/${g.endpointId}/jobs/${done}`)).json();
  assert.deepEqual(detail.input, { prompt: 'first' });
  assert.deepEqual(detail.stream, [{ token: 'a' }, { token: 'b' }]);
  assert.equal(detail.status, 'COMPLETED');
});

test('the series counts the last hour: queue depth now, and jobs by outcome', async () => {
  const series = (await g.call('GET', `/v2/serverless/${g.endpointId}/series?minutes=60&step=60`)).json();
  assert.equal(series.points.length, 60);
  const last = series.points.at(-1);
  assert.equal(last.queued, 1);
  const sum = (field: string) => series.points.reduce((n: number, p: any) => n + p[field], 0);
  assert.deepEqual([sum('submitted'), sum('completed'), sum('cancelled'), sum('failed')], [3, 1, 1, 0]);
  assert.ok(series.points.some((p: any) => p.executionP50 !== null));
});

test("another account sees neither the endpoint's jobs nor its series", async () => {
  const other = await g.services.apiKeys.create({ name: 'other', accountName: 'someone-else' });
  for (const path of ['jobs', `jobs/${done}`, 'series']) {
    const res = await g.call('GET', `/v2/serverless/${g.endpointId}/${path}`, undefined, other.token);
    assert.equal(res.statusCode, 404, path);
  }
});

test('a job id of another endpoint is not found, and a bad filter is a problem naming the field', async () => {
  const missing = await g.call('GET', `/v2/serverless/${g.endpointId}/jobs/nope`);
  assert.equal(missing.statusCode, 404);
  const bad = await g.call('GET', `/v2/serverless/${g.endpointId}/jobs?status=DONE`);
  assert.ok(bad.statusCode === 400 || bad.statusCode === 422);
  assert.match(problem(bad).errors!.join(' '), /status/);
});

test('a read-only key may read the list', async () => {
  const reader = await g.newKey({ name: 'reader', permission: 'read' });
  assert.equal((await g.call('GET', `/v2/serverless/${g.endpointId}/jobs`, undefined, reader)).statusCode, 200);
});

test('a key learns what it may do from /v2/account/key, and never sees its secret there', async () => {
  const reader = await g.newKey({ name: 'reader-2', permission: 'read' });
  const res = await g.call('GET', '/v2/account/key', undefined, reader);
  assert.equal(res.statusCode, 200);
  assert.deepEqual([res.json().name, res.json().permission], ['reader-2', 'read']);
  // The secret is everything after "gantry_<12-char id>_"; it may itself contain "_".
  assert.ok(!res.body.includes(reader.slice('gantry_'.length + 13)), 'the secret is not echoed');
  assert.equal((await g.call('GET', '/v2/account/key')).json().permission, 'full');
});
