// Gantry runs its own workers: scale from zero and back, min workers, crashes, capacity,
// rolling updates and FlashBoot, with the example worker as real processes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startLive, type Live } from './support/live.js';

const ECHO_WORKER = { entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/echo-worker.ts'] };
let g: Live;

before(async () => {
  g = await startLive(
    {
      workerProvider: 'process',
      scaleIntervalMs: '100',
      workerPingIntervalMs: '200',
      jobLeaseMs: '2000',
      workerStopGraceMs: '2000',
      crashBackoffMs: '200',
      capacityFile: capacityFile(),
    },
    { workers: { min: 0, max: 2, idleTimeout: 1 }, ...ECHO_WORKER },
  );
});
after(() => g.close());

function capacityFile(): string {
  const file = join(process.env.TMPDIR ?? '/tmp', `gantry-runtime-capacity-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ gpus: [{ type: 'NVIDIA GeForce RTX 4090', count: 1, cudaVersion: '12.8' }], cpus: { vcpus: 64 } }));
  return file;
}

const workersOf = async (endpointId = g.endpointId) => (await g.call('GET', `/v2/serverless/${endpointId}/workers`)).json();
const createEndpoint = async (extra: Record<string, unknown>) => {
  const res = await g.call('POST', '/v2/serverless', {
    name: 'runtime',
    type: 'QUEUE',
    image: 'local/echo',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    ...ECHO_WORKER,
    ...extra,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
};

test('the first job scales a worker up from zero; idle, it scales back to zero', async () => {
  assert.equal((await workersOf()).summary.total, 0);
  const result = (await g.queue('POST', '/runsync?wait=30000', { input: { echo: 'from zero' } })).json;
  assert.deepEqual([result.status, result.output], ['COMPLETED', 'from zero']);
  const view = await workersOf();
  assert.equal(view.workers.length, 1);
  assert.equal(view.workers[0].managed, true);
  assert.equal(view.workers[0].image, 'acme/echo:1', 'the image is recorded on the worker');
  assert.equal(view.endpointVersion, 1);
  await eventually(async () => (await workersOf()).summary.total === 0, 15_000);
});

test('min workers start as soon as the endpoint exists and stop when min is lowered', async () => {
  const e = await createEndpoint({ workers: { min: 1, max: 2, idleTimeout: 1 } });
  const up = await eventually(async () => {
    const v = await workersOf(e.id);
    return v.summary.idle === 1 && v;
  }, 15_000);
  assert.equal(up.workers[0].status, 'IDLE');
  await g.call('PATCH', `/v2/serverless/${e.id}`, { workers: { min: 0 } });
  await eventually(async () => (await workersOf(e.id)).summary.total === 0, 15_000);
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('a worker that dies mid-job has its job requeued at once and is replaced', async () => {
  const id = (await g.queue('POST', '/run', { input: { sleepMs: 4000, echo: 'finished anyway' } })).json.id;
  await eventually(async () => (await g.queue('GET', `/status/${id}`)).json.status === 'IN_PROGRESS', 15_000);
  const victim = g.services.runtime!.workersOf(g.endpointId)[0]!;
  process.kill(-victim.pid!, 'SIGKILL');
  const requeued = await eventually(async () => {
    const s = (await g.queue('GET', `/status/${id}`)).json;
    return s.retries === 1 && s;
  }, 1500);
  assert.ok(['IN_QUEUE', 'IN_PROGRESS'].includes(requeued.status), 'back in the queue before any lease could lapse');
  const final = (await g.queue('GET', `/status-sync/${id}?wait=30000`)).json;
  assert.deepEqual([final.status, final.output], ['COMPLETED', 'finished anyway']);
});

test('a job that crashes every worker taking it fails after --max-lease-losses crashes; the next job runs', async () => {
  const e = await createEndpoint({ workers: { min: 0, max: 1, idleTimeout: 1 } });
  const queue = (method: string, path: string, body?: unknown) => g.call(method, `/v2/${e.id}${path}`, body);
  const id = (await queue('POST', '/run', { input: { exitProcess: 3 } })).json().id as string;
  const failed = await eventually(async () => {
    const s = (await queue('GET', `/status/${id}`)).json();
    return s.status === 'FAILED' && s;
  }, 30_000);
  assert.equal(failed.retries, 2, 'two returns to the queue, then the third crash ends it');
  assert.match(failed.error, /lost by its workers too many times \(the last one stopped without sending a result\)/);
  const next = (await queue('POST', '/runsync?wait=30000', { input: { echo: 'innocent' } })).json();
  assert.deepEqual([next.status, next.output], ['COMPLETED', 'innocent']);
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('an endpoint whose workers keep crashing says why in its workers view', async () => {
  const e = await createEndpoint({
    entrypoint: [process.execPath],
    cmd: ['-e', 'console.error("model weights missing"); process.exit(3)'],
    workers: { min: 1, max: 1 },
  });
  const view = await eventually(async () => {
    const v = await workersOf(e.id);
    return v.crashLoop && v.crashLoop.consecutive >= 2 && v;
  }, 15_000);
  assert.equal(view.crashLoop.lastReason, 'the worker exited with code 3');
  assert.ok(view.crashLoop.lastLogLines.includes('model weights missing'));
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('without capacity a worker is THROTTLED until some frees up', async () => {
  const e = await createEndpoint({ cpu: undefined, gpu: { pools: ['ADA_24'] }, workers: { min: 2, max: 2 } });
  const view = await eventually(async () => {
    const v = await workersOf(e.id);
    return v.summary.total === 2 && v.summary.throttled === 1 && v;
  }, 15_000);
  const placed = view.workers.find((w: { status: string }) => w.status !== 'THROTTLED');
  assert.deepEqual([placed.gpuTypeId, placed.gpuCount, placed.dataCenterId], ['NVIDIA GeForce RTX 4090', 1, 'LOCAL']);
  const gpus = (
    await g.call('GET', `/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS`)
  ).json();
  assert.equal(gpus.availability, 'NONE', 'the catalog reports the capacity in use');
  await g.call('DELETE', `/v2/serverless/${e.id}`);
  await eventually(async () => g.services.runtime!.workersOf(e.id).length === 0, 15_000);
});

test('a configuration change rolls workers onto the new version after their job', async () => {
  const e = await createEndpoint({ workers: { min: 1, max: 1 }, env: { MODEL: 'a' } });
  const first = await eventually(async () => {
    const v = await workersOf(e.id);
    return v.summary.idle === 1 && v.workers[0];
  }, 15_000);
  const patched = await g.call('PATCH', `/v2/serverless/${e.id}`, { env: { MODEL: 'b' } });
  assert.equal(patched.json().version, 2);
  const rolled = await eventually(async () => {
    const v = await workersOf(e.id);
    return v.workers.length === 1 && v.workers[0].version === 2 && v.workers[0].id !== first.id && v;
  }, 20_000);
  assert.equal(rolled.workers[0].isStale, false);
  const releases = (await g.call('GET', `/v2/serverless/${e.id}/releases`)).json();
  assert.deepEqual(
    releases.releases.map((r: { version: number }) => r.version),
    [2, 1],
  );
  assert.deepEqual(releases.releases[0].diff, [{ field: 'env', old: { MODEL: 'a' }, new: { MODEL: 'b' } }]);
  assert.equal(releases.releases[0].source, 'MANUAL');
  await eventually(async () => (await g.call('GET', `/v2/serverless/${e.id}/releases`)).json().rollout.percentOnLatest === 100, 10_000);
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('FlashBoot freezes a scaled-down worker and resumes it for the next job', async () => {
  const e = await createEndpoint({ flashboot: 'FLASHBOOT', workers: { min: 0, max: 1, idleTimeout: 1 } });
  const run = (input: unknown) =>
    fetch(`${g.url}/v2/${e.id}/runsync?wait=30000`, {
      method: 'POST',
      headers: { authorization: g.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    }).then((r) => r.json());
  assert.equal((await run({ echo: 1 })).output, 1);
  const worker = g.services.runtime!.workersOf(e.id)[0]!;
  await eventually(async () => g.services.runtime!.workersOf(e.id).length === 0, 15_000);
  // SIGSTOP takes effect a moment after it is sent.
  const stopped = await eventually(
    async () => readFileSync(`/proc/${worker.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] === 'T',
    2000,
  );
  assert.equal(stopped, true, 'the process is stopped, not gone');
  assert.equal((await run({ echo: 2 })).output, 2);
  const resumed = g.services.runtime!.workersOf(e.id)[0]!;
  assert.equal(resumed.workerId, worker.workerId, 'the same worker resumed instead of a cold start');
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test("a worker's logs can be read", async () => {
  const e = await createEndpoint({ workers: { min: 1, max: 1 } });
  const worker = await eventually(async () => g.services.runtime!.workersOf(e.id)[0], 15_000);
  const read = async () => {
    const res = await fetch(`${g.url}/v2/serverless/${e.id}/workers/${worker.workerId}/logs?tail=10&follow=false`, {
      headers: { authorization: `Bearer ${g.adminKey}` },
    });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
    return res.text();
  };
  // The worker is listed from the moment it is placed; its process writes the first line once spawned.
  const text = await eventually(async () => {
    const body = await read();
    return body.includes('"line":"started: ') && body;
  }, 15_000);
  assert.match(text, /data: \{"source":"system","line":"started: /);

  // A reconnecting client sends the last event id it saw and gets only what came after it.
  const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
  assert.ok(ids.length >= 1);
  const logsUrl = `${g.url}/v2/serverless/${e.id}/workers/${worker.workerId}/logs?follow=false`;
  const resumed = await (await fetch(logsUrl, { headers: { authorization: `Bearer ${g.adminKey}`, 'last-event-id': ids.at(-1)! } })).text();
  assert.deepEqual(
    [...resumed.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!).filter((id) => ids.includes(id)),
    [],
    'nothing already seen is sent again',
  );
  const fromStart = await (
    await fetch(`${logsUrl}&since=${encodeURIComponent(ids[0]!)}`, { headers: { authorization: `Bearer ${g.adminKey}` } })
  ).text();
  assert.ok(fromStart.includes(`id: ${ids[0]}`), 'since includes the line at that time');
  const badSince = await fetch(`${logsUrl}&since=yesterday`, { headers: { authorization: `Bearer ${g.adminKey}` } });
  assert.equal(badSince.status, 422);

  // Through another endpoint's path, another account's or the same account's, the worker is unknown.
  const otherKey = await g.newKey({ accountName: 'logs-probe' });
  const theirs = await g.call(
    'POST',
    '/v2/serverless',
    {
      name: 'their-endpoint',
      type: 'QUEUE',
      image: 'local/echo',
      scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
      ...ECHO_WORKER,
    },
    otherKey,
  );
  assert.equal(theirs.statusCode, 201, theirs.body);
  const mine = await createEndpoint({ name: 'my-other-endpoint' });
  for (const [endpointId, key] of [
    [theirs.json().id, otherKey],
    [mine.id, g.adminKey],
  ] as const) {
    const probe = await fetch(`${g.url}/v2/serverless/${endpointId}/workers/${worker.workerId}/logs?follow=false`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(probe.status, 404);
    assert.match(String(probe.headers.get('content-type')), /^application\/problem\+json/);
  }
  await g.call('DELETE', `/v2/serverless/${e.id}`);
  await g.call('DELETE', `/v2/serverless/${mine.id}`);
});

test('a worker that asks to be recycled is replaced without its job coming back or a grace period lost', async () => {
  const e = await createEndpoint({ workers: { min: 0, max: 1, idleTimeout: 30 } });
  const runsync = async (input: unknown) => {
    const res = await fetch(`${g.url}/v2/${e.id}/runsync?wait=30000`, {
      method: 'POST',
      headers: { authorization: g.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    });
    return (await res.json()) as { id: string; status: string; output: unknown; retries?: number };
  };
  const first = await runsync({ echo: 'once', refresh: true });
  assert.deepEqual([first.status, first.output], ['COMPLETED', { echo: 'once' }]);
  const [recycled] = g.services.runtime!.workersOf(e.id);
  const second = await runsync({ echo: 'next' });
  assert.deepEqual(
    [second.status, second.output, second.retries],
    ['COMPLETED', 'next', undefined],
    'the next job ran once, on a fresh worker',
  );
  const [fresh] = g.services.runtime!.workersOf(e.id).filter((w) => w.phase !== 'STOPPING');
  assert.notEqual(fresh?.workerId, recycled?.workerId);
  // The recycled worker's open long-poll was answered at once, so it left by itself before its grace ran out.
  const log = await eventually(async () => {
    const lines = g.services.runtime!.logs(e.id, recycled!.workerId, 50).map((l) => l.line);
    return lines.some((l) => l.startsWith('exited')) && lines;
  }, 15_000);
  assert.ok(
    log.some((l) => /exited: code 0/.test(l)),
    `a clean exit, not a kill: ${log.slice(-3).join(' | ')}`,
  );
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('an endpoint whose GPU this deployment lacks says why in /health and /workers', async () => {
  const created = await g.call('POST', '/v2/serverless', {
    name: 'no-such-gpu',
    type: 'QUEUE',
    image: 'local/echo',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    gpu: { pools: ['AMPERE_80'] },
    workers: { min: 1, max: 1 },
    ...ECHO_WORKER,
  });
  assert.equal(created.statusCode, 201, created.body);
  assert.match(String(created.headers['gantry-warning']), /no worker can be placed: no GPU of pool AMPERE_80/, 'told at create time');
  const e = created.json();
  const health = await eventually(async () => {
    const res = await fetch(`${g.url}/v2/${e.id}/health`, { headers: { authorization: g.adminKey } });
    const body = (await res.json()) as { throttled?: { reason: string } };
    return body.throttled && body;
  }, 10_000);
  assert.match(health.throttled!.reason, /no GPU of pool AMPERE_80 on this deployment, which has NVIDIA GeForce RTX 4090/);
  assert.equal((await workersOf(e.id)).throttled.reason, health.throttled!.reason);
  await g.call('DELETE', `/v2/serverless/${e.id}`);
});

test('an endpoint with an image but no command is accepted with a warning under the process provider', async () => {
  const created = await g.call('POST', '/v2/serverless', {
    name: 'image-only',
    type: 'QUEUE',
    image: 'acme/worker:1',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(created.statusCode, 201, created.body);
  assert.match(String(created.headers['gantry-warning']), /has none: set args .* --worker-provider docker/);
  const fine = await g.call('POST', '/v2/serverless', {
    name: 'runnable',
    type: 'QUEUE',
    image: 'local/echo',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    ...ECHO_WORKER,
  });
  assert.equal(fine.headers['gantry-warning'], undefined, 'an endpoint that can run gets no warning');
  await g.call('DELETE', `/v2/serverless/${created.json().id}`);
  await g.call('DELETE', `/v2/serverless/${fine.json().id}`);
});
