// Time on the queue: execution timeouts, TTLs, retention, and what deleting an endpoint does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startLive, type Live } from './support/live.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const statusOf = (id: string) => g.queue('GET', `/status/${id}`);

test('a job running past policy.executionTimeout is TIMED_OUT and its worker told to stop', async () => {
  const id = (await g.queue('POST', '/run', { input: {}, policy: { executionTimeout: 1000 } })).json.id;
  await g.worker('GET', '/job-take/slow');
  const stop = await g.worker('GET', '/job-stop/slow');
  assert.deepEqual(stop.json, { jobsToStop: [id] });
  const s = (await statusOf(id)).json;
  assert.equal(s.status, 'TIMED_OUT');
  assert.match(s.error, /execution timeout of 1000 ms/);
  const retried = await g.queue('POST', `/retry/${id}`);
  assert.equal(retried.json.status, 'IN_QUEUE', 'a timed-out job can be retried');
  await g.queue('POST', `/cancel/${id}`);
});

test('the endpoint timeout applies when the job sets none', async () => {
  const patched = await g.call('PATCH', `/v2/serverless/${g.endpointId}`, { timeout: 1000 });
  assert.equal(patched.statusCode, 200);
  const id = (await g.queue('POST', '/run', { input: {} })).json.id;
  await g.worker('GET', '/job-take/slow2');
  await eventually(async () => (await statusOf(id)).json.status === 'TIMED_OUT');
  await g.call('PATCH', `/v2/serverless/${g.endpointId}`, { timeout: 300000 });
});

test("policy.ttl bounds the job's life: an expired job is gone, even mid-run, and cannot be retried", async () => {
  const queued = (await g.queue('POST', '/run', { input: {}, policy: { ttl: 1000 } })).json.id;
  assert.equal((await statusOf(queued)).status, 200);
  await eventually(async () => (await statusOf(queued)).status === 404, 3000);
  assert.equal((await g.queue('POST', `/retry/${queued}`)).status, 404);

  const running = (await g.queue('POST', '/run', { input: {}, policy: { ttl: 1000 } })).json.id;
  assert.equal((await g.worker('GET', '/job-take/ttl-worker')).json.id, running);
  const stop = await g.worker('GET', '/job-stop/ttl-worker');
  assert.deepEqual(stop.json, { jobsToStop: [running] }, 'the worker is told to stop the expired job');
  assert.equal((await statusOf(running)).status, 404);
  const late = await g.worker('POST', `/job-done/ttl-worker/${running}?isStream=false`, '{"output": 1}');
  assert.equal(late.status, 200, 'a late result of an expired job is accepted quietly');
});

test('status ttl sets how long from now the job is kept', async () => {
  const id = (await g.queue('POST', '/run', { input: {} })).json.id;
  const res = await g.queue('GET', `/status/${id}?ttl=1000`);
  assert.equal(res.json.status, 'IN_QUEUE');
  await eventually(async () => (await statusOf(id)).status === 404, 3000);
  const bad = await g.queue('GET', `/status/${id}?ttl=abc`);
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.json.errors, ['ttl: must be integer']);
});

test('results are kept after completion for the retention period, then gone', async () => {
  const endpoint = await g.services.endpoints.get(g.adminAccountId, g.endpointId);
  const job = await g.services.jobs.submit(endpoint, { input: {} }, 300);
  await g.worker('GET', '/job-take/r1');
  await g.worker('POST', `/job-done/r1/${job.id}?isStream=false`, '{"output": "kept briefly"}');
  assert.equal((await statusOf(job.id)).json.output, 'kept briefly');
  await eventually(async () => (await statusOf(job.id)).status === 404, 3000);
});

test('deleting the endpoint drops its queue', async () => {
  const extra = await g.call('POST', '/v2/serverless', {
    name: 'short-lived',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    image: 'x',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  const endpointId = extra.json().id;
  const job = await g.services.jobs.submit(await g.services.endpoints.get(g.adminAccountId, endpointId), { input: {} }, 60_000);
  assert.ok(await g.services.store.jobs.get(job.id));
  assert.equal((await g.call('DELETE', `/v2/serverless/${endpointId}`)).statusCode, 204);
  assert.equal(await g.services.store.jobs.get(job.id), undefined);
});
