// The queue API end to end over a real socket, with a protocol-level worker.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';
import { Cancellation } from '../src/domain/cancellation.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const take = (worker = 'w1') => g.worker('GET', `/job-take/${worker}?gpu=none&job_in_progress=0`);
const done = (jobId: string, body: unknown, worker = 'w1') =>
  g.worker('POST', `/job-done/${worker}/${jobId}?gpu=none&isStream=false`, JSON.stringify(body));

async function runAndTake(input: Record<string, unknown> = { prompt: 'hi' }, extra: Record<string, unknown> = {}) {
  const run = await g.queue('POST', '/run', { input, ...extra });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  const taken = await take();
  assert.equal(taken.status, 200);
  assert.equal(taken.json.id, run.json.id);
  return run.json.id as string;
}

describe('submit, take, complete', () => {
  test('a job goes IN_QUEUE -> IN_PROGRESS -> COMPLETED with timings and output', async () => {
    const run = await g.queue('POST', '/run', { input: { prompt: 'hello' } });
    assert.equal(run.status, 200);
    assert.equal(run.json.status, 'IN_QUEUE');
    assert.match(run.json.id, /^[0-9a-f-]{36}-/);
    const queued = await g.queue('GET', `/status/${run.json.id}`);
    assert.equal(queued.json.status, 'IN_QUEUE');
    assert.equal(typeof queued.json.delayTime, 'number');
    const taken = await take();
    assert.deepEqual(taken.json, { id: run.json.id, input: { prompt: 'hello' } });
    assert.equal((await g.queue('GET', `/status/${run.json.id}`)).json.status, 'IN_PROGRESS');
    await done(run.json.id, { output: { text: 'world', n: [1, 2] } });
    const finished = await g.queue('POST', `/status/${run.json.id}`);
    assert.equal(finished.status, 200);
    assert.equal(finished.json.status, 'COMPLETED');
    assert.deepEqual(finished.json.output, { text: 'world', n: [1, 2] });
    assert.equal(typeof finished.json.delayTime, 'number');
    assert.equal(typeof finished.json.executionTime, 'number');
    assert.equal(finished.json.error, undefined);
  });

  test('Bearer and bare keys both work on the queue API', async () => {
    const bare = await g.queue('GET', '/health');
    const bearer = await g.queue('GET', '/health', undefined, `Bearer ${g.adminKey}`);
    assert.deepEqual([bare.status, bearer.status], [200, 200]);
  });

  test('runsync returns the result when the worker finishes in time', async () => {
    const worker = (async () => {
      const taken = await take();
      await done(taken.json.id, { output: taken.json.input.n * 2 });
    })();
    const res = await g.queue('POST', '/runsync?wait=5000', { input: { n: 21 } });
    await worker;
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'COMPLETED');
    assert.equal(res.json.output, 42);
  });

  test('runsync that does not finish within wait answers the current status; the job keeps going', async () => {
    const res = await g.queue('POST', '/runsync?wait=1000', { input: { slow: true } });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'IN_QUEUE');
    const taken = await take();
    assert.equal(taken.json.id, res.json.id);
    await done(res.json.id, { output: 'late' });
    const synced = await g.queue('GET', `/status-sync/${res.json.id}?wait=2000`);
    assert.deepEqual([synced.json.status, synced.json.output], ['COMPLETED', 'late']);
  });

  test('status-sync waits for the result, and answers exactly what a read of the finished job shows', async () => {
    const id = await runAndTake();
    setTimeout(() => void done(id, { output: 'ok', error: { kind: 'partial' } }), 200);
    const res = await g.queue('POST', `/status-sync/${id}?wait=5000`);
    assert.deepEqual([res.json.status, res.json.output, res.json.error], ['FAILED', 'ok', '{"kind":"partial"}']);
    // The waiter is handed the completion's row; it must be the stored job, timings included.
    assert.deepEqual(res.json, (await g.queue('GET', `/status/${id}`)).json);
  });

  test('s3Config reaches the worker and never comes back to clients', async () => {
    const s3Config = { accessId: 'a', accessSecret: 'secret', bucketName: 'b', endpointUrl: 'https://s3.example.test' };
    const run = await g.queue('POST', '/run', { input: {}, s3Config });
    const taken = await take();
    assert.deepEqual(taken.json.s3Config, s3Config);
    const status = await g.queue('GET', `/status/${run.json.id}`);
    assert.ok(!JSON.stringify(status.json).includes('secret'));
    await done(run.json.id, { output: null });
  });

  test('low-priority jobs are served after normal ones', async () => {
    const low = await g.queue('POST', '/run', { input: { p: 'low' }, policy: { lowPriority: true } });
    const normal = await g.queue('POST', '/run', { input: { p: 'normal' } });
    const first = await take();
    const second = await take();
    assert.deepEqual([first.json.id, second.json.id], [normal.json.id, low.json.id]);
    await done(first.json.id, { output: 1 });
    await done(second.json.id, { output: 2 });
  });
});

describe('cancel, retry, purge, health', () => {
  test('cancel of a queued job removes it before it starts', async () => {
    const run = await g.queue('POST', '/run', { input: {} });
    const res = await g.queue('POST', `/cancel/${run.json.id}`);
    assert.deepEqual(res.json, { id: run.json.id, status: 'CANCELLED' });
    assert.equal((await take()).status, 204, 'nothing left to take');
  });

  test('cancel of a running job stops it on the worker', async () => {
    const id = await runAndTake();
    const res = await g.worker('GET', '/job-stop/w1?gpu=none');
    assert.equal(res.status, 204, 'nothing to stop yet');
    const [cancel, stop] = await Promise.all([g.queue('POST', `/cancel/${id}`, {}), g.worker('GET', '/job-stop/w1?gpu=none')]);
    assert.equal(cancel.json.status, 'CANCELLED');
    assert.deepEqual(stop.json, { jobsToStop: [id] });
    await done(id, { output: 'too late' });
    assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'CANCELLED', 'a late result does not undo the cancel');
  });

  test('a stop drained just as its long-poll ends is kept for the next one', async () => {
    const id = await runAndTake();
    await g.queue('POST', `/cancel/${id}`, {});
    // The client leaves while the stop is being read: the next long-poll must still get it.
    const clientLeft = new Cancellation();
    const reading = g.services.workerProtocol.stops(g.endpointId, 'w1', clientLeft);
    clientLeft.abort();
    assert.deepEqual(await reading, []);
    const stop = await g.worker('GET', '/job-stop/w1?gpu=none');
    assert.deepEqual(stop.json, { jobsToStop: [id] });
  });

  test('cancelling a finished job is a 409 naming its status', async () => {
    const id = await runAndTake();
    await done(id, { output: 1 });
    const res = await g.queue('POST', `/cancel/${id}`);
    assert.equal(res.status, 409);
    assert.equal(res.json.detail, `job ${id} is COMPLETED; only IN_QUEUE or IN_PROGRESS jobs can be cancelled`);
  });

  test('retry puts a failed job back with the same id and input, previous output removed', async () => {
    const id = await runAndTake({ attempt: 1 });
    await done(id, { error: 'boom', output: { partial: true } });
    const failed = await g.queue('GET', `/status/${id}`);
    assert.deepEqual([failed.json.status, failed.json.error, failed.json.output], ['FAILED', 'boom', { partial: true }]);
    const retried = await g.queue('POST', `/retry/${id}`);
    assert.deepEqual(retried.json, { id, status: 'IN_QUEUE' });
    const status = await g.queue('GET', `/status/${id}`);
    assert.equal(status.json.output, undefined);
    assert.equal(status.json.error, undefined);
    assert.equal(status.json.retries, 1);
    const again = await take();
    assert.deepEqual(again.json, { id, input: { attempt: 1 } });
    await done(id, { output: 'second time' });
  });

  test('retrying a completed or queued job is a 409 naming its status', async () => {
    const id = await runAndTake();
    await done(id, { output: 1 });
    const res = await g.queue('POST', `/retry/${id}`);
    assert.equal(res.status, 409);
    assert.equal(res.json.detail, `job ${id} is COMPLETED; only FAILED or TIMED_OUT jobs can be retried`);
  });

  test('purge-queue removes queued jobs and leaves running ones', async () => {
    const running = await runAndTake();
    for (let i = 0; i < 3; i++) await g.queue('POST', '/run', { input: { i } });
    const purge = await g.queue('POST', '/purge-queue', {});
    assert.deepEqual(purge.json, { removed: 3, status: 'completed' });
    assert.equal((await g.queue('GET', `/status/${running}`)).json.status, 'IN_PROGRESS');
    await done(running, { output: 'fine' });
    assert.equal((await g.queue('GET', `/status/${running}`)).json.status, 'COMPLETED');
  });

  test('after purge-queue the purged jobs read as not found and are never taken; jobs submitted after it are', async () => {
    const purgedIds: string[] = [];
    for (let i = 0; i < 4; i++) purgedIds.push((await g.queue('POST', '/run', { input: { i } })).json.id);
    const queuedBefore = (await g.queue('GET', '/health')).json.jobs.inQueue;
    const purge = await g.queue('POST', '/purge-queue', {});
    assert.equal(purge.json.removed, queuedBefore);
    assert.equal((await g.queue('GET', '/health')).json.jobs.inQueue, 0);
    for (const id of purgedIds) {
      assert.equal((await g.queue('GET', `/status/${id}`)).status, 404);
      assert.equal((await g.queue('POST', `/cancel/${id}`)).status, 404);
    }
    const later = await runAndTake({ after: true });
    await done(later, { output: 'ran' });
    assert.equal((await g.queue('GET', `/status/${later}`)).json.status, 'COMPLETED');
  });

  test('health counts jobs and the workers seen through the protocol', async () => {
    const h = await g.queue('GET', '/health');
    assert.equal(h.status, 200);
    assert.deepEqual(Object.keys(h.json.jobs).sort(), ['completed', 'failed', 'inProgress', 'inQueue', 'retried']);
    assert.deepEqual(Object.keys(h.json.workers).sort(), ['idle', 'initializing', 'ready', 'running', 'throttled', 'unhealthy']);
    assert.ok(h.json.jobs.completed >= 1);
    const id = await runAndTake();
    await g.worker('GET', `/ping/w1?job_id=${id}&runpod_version=1.7.0`);
    const busy = await g.queue('GET', '/health');
    assert.equal(busy.json.jobs.inProgress, 1);
    assert.equal(busy.json.workers.running, 1);
    await done(id, { output: 1 });
    await g.worker('GET', '/ping/w1?runpod_version=1.7.0');
    const idle = await g.queue('GET', '/health');
    assert.deepEqual([idle.json.workers.running, idle.json.workers.idle], [0, 1]);
    await g.worker('GET', '/ping/w1?status=unhealthy&check=cuda&reason=no%20device');
    assert.equal((await g.queue('GET', '/health')).json.workers.unhealthy, 1);
  });
});

describe('input, limits and errors', () => {
  const cases: [string, unknown, string[]][] = [
    ['missing input', {}, ['input: is required']],
    ['input not an object', { input: 'text' }, ['input: must be object']],
    ['input an array', { input: [1] }, ['input: must be object']],
    ['unknown top-level property', { input: {}, inputs: {} }, ['inputs: unknown property']],
    [
      'bad policy',
      { input: {}, policy: { ttl: 'soon', priority: 1 } },
      ['policy.priority: unknown property', 'policy.ttl: must be integer'],
    ],
  ];
  for (const [name, body, errors] of cases) {
    test(`${name} is a 400 naming the field`, async () => {
      const res = await g.queue('POST', '/run', body);
      assert.equal(res.status, 400);
      assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
      assert.deepEqual(res.json.errors, errors);
    });
  }

  test('right after an endpoint is deleted, its queue answers 404 (no stale copy serves it)', async () => {
    const created = await g.call('POST', '/v2/serverless', {
      name: 'short-lived',
      type: 'QUEUE',
      scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
      image: 'acme/echo:1',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    });
    const id = created.json().id as string;
    const submit = () =>
      fetch(`${g.url}/v2/${id}/run`, {
        method: 'POST',
        headers: { authorization: g.adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({ input: {} }),
      });
    assert.equal((await submit()).status, 200);
    assert.equal((await g.call('DELETE', `/v2/serverless/${id}`)).statusCode, 204);
    assert.equal((await submit()).status, 404);
  });

  test('bad JSON is a 400', async () => {
    const res = await fetch(`${g.url}/v2/${g.endpointId}/run`, {
      method: 'POST',
      headers: { authorization: g.adminKey, 'content-type': 'application/json' },
      body: '{"input": {',
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).detail, /not valid JSON/);
  });

  test('wait out of range is a 400', async () => {
    const res = await g.queue('POST', '/runsync?wait=500', { input: {} });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.errors, ['wait: must be >= 1000']);
    const high = await g.queue('POST', '/runsync?wait=300001', { input: {} });
    assert.deepEqual(high.json.errors, ['wait: must be <= 300000']);
  });

  test('/run over 10 MB and /runsync over 20 MB are 413; /runsync takes 15 MB', async () => {
    const big = (mb: number) => ({ input: { blob: 'x'.repeat(mb * 1024 * 1024) } });
    const run = await g.queue('POST', '/run', big(11));
    assert.equal(run.status, 413);
    assert.match(run.json.detail, /exceeds the 10485760 byte limit/);
    const sync = await g.queue('POST', '/runsync?wait=1000', big(21));
    assert.equal(sync.status, 413);
    const ok = await g.queue('POST', '/runsync?wait=1000', big(15));
    assert.equal(ok.status, 200);
    await g.queue('POST', `/cancel/${ok.json.id}`);
  });

  test('unknown endpoint, unknown job, other account: 404', async () => {
    assert.equal(
      (
        await g.queue('POST', '/run', { input: {} }, g.adminKey).then(() =>
          fetch(`${g.url}/v2/nosuchendpoint/run`, {
            method: 'POST',
            headers: { authorization: g.adminKey, 'content-type': 'application/json' },
            body: '{"input":{}}',
          }),
        )
      ).status,
      404,
    );
    const unknownJob = await g.queue('GET', '/status/00000000-0000-0000-0000-000000000000');
    assert.equal(unknownJob.status, 404);
    const other = await g.newKey({ accountName: 'someone-else' });
    assert.equal((await g.queue('POST', '/run', { input: {} }, other)).status, 404);
  });

  test('a key restricted to other endpoints gets 403; one for this endpoint works', async () => {
    const elsewhere = await g.newKey({ permission: 'endpoints', endpointIds: ['otherendpoint1'] });
    const denied = await g.queue('POST', '/run', { input: {} }, elsewhere);
    assert.equal(denied.status, 403);
    assert.equal(denied.json.detail, `this API key may not use endpoint ${g.endpointId}`);
    const allowed = await g.newKey({ permission: 'endpoints', endpointIds: [g.endpointId] });
    const run = await g.queue('POST', '/run', { input: {} }, allowed);
    assert.equal(run.status, 200);
    await g.queue('POST', `/cancel/${run.json.id}`, undefined, allowed);
  });

  test('queue operations on a load-balancing endpoint are a clear 400', async () => {
    const lb = await g.call('POST', '/v2/serverless', {
      name: 'lb',
      type: 'LOAD_BALANCER',
      scaling: { type: 'REQUEST_COUNT', requestCount: 1 },
      image: 'x',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    });
    const res = await fetch(`${g.url}/v2/${lb.json().id}/health`, { headers: { authorization: g.adminKey } });
    assert.equal(res.status, 400);
    assert.match((await res.json()).detail, /LOAD_BALANCER endpoint; it has no job queue/);
  });
});
