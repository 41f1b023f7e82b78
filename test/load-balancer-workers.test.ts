// How the balancer treats load-balancing workers, run as real processes: scale from zero with
// the first request held, spreading load, unhealthy and killed workers, timeouts and 503s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startLive, type Live } from './support/live.js';
import { lbFetch, open, read } from './support/lb-client.js';
import type { ConfigFlags } from '../src/config.js';

const HTTP_WORKER = { entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/http-worker.ts'] };
let g: Live;

const SETTINGS = {
  workerProvider: 'process',
  scaleIntervalMs: '100',
  lbHealthIntervalMs: '100',
  lbUnhealthyMs: '300',
  lbHoldMs: '30000',
  workerStopGraceMs: '2000',
  crashBackoffMs: '100',
} as const;

before(async () => {
  g = await startLive(SETTINGS);
});
after(() => g.close());

/** Runs `check` against a server of its own with some settings changed; the configuration is fixed once started. */
async function withSettings(changed: ConfigFlags, check: () => Promise<void>): Promise<void> {
  const shared = g;
  g = await startLive({ ...SETTINGS, ...changed });
  try {
    await check();
  } finally {
    await g.close();
    g = shared;
  }
}

async function createLb(extra: Record<string, unknown>): Promise<string> {
  const res = await g.call('POST', '/v2/serverless', {
    name: 'http',
    type: 'LOAD_BALANCER',
    image: 'local/http',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
    ...HTTP_WORKER,
    ...extra,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}
const workersOf = async (id: string) => (await g.call('GET', `/v2/serverless/${id}/workers`)).json();
const call = (id: string, path: string, method = 'GET') =>
  lbFetch({ url: g.url, path: `/v2/lb/${id}${path}`, method, headers: { authorization: `Bearer ${g.adminKey}` } });
const remove = (id: string) => g.call('DELETE', `/v2/serverless/${id}`);

test('the first request to an endpoint at zero is held while a worker starts, then served; idle, it scales back to zero', async () => {
  const id = await createLb({ workers: { min: 0, max: 2, idleTimeout: 1 }, env: { STARTUP_MS: '600' } });
  assert.equal((await workersOf(id)).summary.total, 0);
  const first = call(id, '/whoami');
  const held = await eventually(
    async () => {
      const health = await call(id, '/ping');
      return health.json.requests.held === 1 && health.json;
    },
    10_000,
    20,
  );
  assert.equal(held.workers.ready, 0, 'no worker was ready while the request was held');
  const answer = await first;
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.json.worker, new RegExp(`^${id.slice(0, 6)}-`));
  await eventually(async () => (await workersOf(id)).summary.total === 0, 15_000);
  await remove(id);
});

test('each local worker gets its own PORT and PORT_HEALTH, and is health-checked at HEALTH_CHECK_PATH there', async () => {
  const split = await createLb({ workers: { min: 1, max: 1 }, env: { PORT: '8000', PORT_HEALTH: '8001', HEALTH_CHECK_PATH: 'healthz' } });
  const shared = await createLb({ workers: { min: 1, max: 1 }, env: { PORT: '9000' } });
  // The endpoint's own health path answers the balancer's view.
  const ready = async (id: string, healthPath: string) => (await call(id, healthPath)).json?.workers?.ready === 1;
  await eventually(async () => (await ready(split, '/healthz')) && (await ready(shared, '/ping')), 15_000);
  const own = (await call(split, '/whoami')).json;
  assert.equal(own.healthPath, '/healthz');
  assert.notEqual(own.port, own.healthPort, 'health on a port of its own, as the endpoint asks');
  // The worker answers /ping on its main port with 404: only a check of /healthz on PORT_HEALTH finds it ready.
  assert.equal((await call(split, '/ping')).status, 404);
  const together = (await call(shared, '/whoami')).json;
  assert.notEqual(together.port, together.healthPort, "without PORT_HEALTH, health is on the contract's 80, a port of its own here");
  assert.equal(together.healthPath, '/ping');
  await Promise.all([remove(split), remove(shared)]);
});

test('requests spread across ready workers by outstanding requests', async () => {
  const id = await createLb({ workers: { min: 2, max: 2 }, scaling: { type: 'REQUEST_COUNT', requestCount: 10 } });
  await eventually(async () => (await workersOf(id)).summary.idle === 2, 20_000);
  const answers = await Promise.all(Array.from({ length: 16 }, () => call(id, '/sleep?ms=400')));
  const perWorker = new Map<string, number>();
  for (const a of answers) perWorker.set(a.json.worker, (perWorker.get(a.json.worker) ?? 0) + 1);
  assert.equal(perWorker.size, 2, 'both workers served');
  assert.deepEqual([...perWorker.values()], [8, 8], 'the fewest outstanding requests wins');
  await remove(id);
});

test("requests beyond the workers' capacity scale the endpoint up", async () => {
  const id = await createLb({ workers: { min: 0, max: 3, idleTimeout: 1 }, scaling: { type: 'REQUEST_COUNT', requestCount: 1 } });
  const answers = await Promise.all(Array.from({ length: 3 }, () => call(id, '/sleep?ms=1500')));
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200],
  );
  assert.equal(new Set(answers.map((a) => a.json.worker)).size, 3, 'one worker per concurrent request at requestCount 1');
  await remove(id);
});

test('a worker that turns unhealthy leaves the rotation and is replaced', () =>
  // Long enough to look at the unhealthy worker before it is replaced.
  withSettings({ lbUnhealthyMs: '3000' }, async () => {
    const id = await createLb({ workers: { min: 2, max: 2 } });
    await eventually(async () => (await workersOf(id)).summary.idle === 2, 20_000);
    const sick = (await call(id, '/unhealthy', 'POST')).json.worker as string;
    await eventually(
      async () => (await workersOf(id)).workers.find((w: { id: string; status: string }) => w.id === sick && w.status === 'UNHEALTHY'),
      10_000,
    );
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(id, '/whoami')));
    assert.ok(
      answers.every((a) => a.status === 200 && a.json.worker !== sick),
      'no request went to the unhealthy worker',
    );
    await eventually(async () => (await workersOf(id)).workers.every((w: { id: string }) => w.id !== sick), 10_000);
    await eventually(async () => (await workersOf(id)).summary.idle === 2, 20_000);
    await remove(id);
  }));

test('a worker killed mid-request answers 502 at once and is replaced', async () => {
  const id = await createLb({ workers: { min: 1, max: 1 } });
  await eventually(async () => (await workersOf(id)).summary.idle === 1, 20_000);
  const victim = g.services.runtime!.workersOf(id)[0]!;
  const pending = call(id, '/sleep?ms=20000');
  await eventually(async () => (await workersOf(id)).summary.running === 1, 5000, 20);
  process.kill(-victim.pid!, 'SIGKILL');
  const answer = await pending;
  assert.equal(answer.status, 502);
  assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
  assert.match(answer.json.detail, /the worker failed before answering/);
  const next = await call(id, '/whoami');
  assert.equal(next.status, 200, 'the next request is held for the replacement');
  assert.notEqual(next.json.worker, victim.workerId);
  await remove(id);
});

test('a worker dying mid-answer cuts the client off instead of ending cleanly', async () => {
  const id = await createLb({ workers: { min: 1, max: 1 } });
  await eventually(async () => (await workersOf(id)).summary.idle === 1, 20_000);
  const victim = g.services.runtime!.workersOf(id)[0]!;
  const res = await open({ url: g.url, path: `/v2/lb/${id}/sse?n=100&everyMs=100`, headers: { authorization: `Bearer ${g.adminKey}` } });
  assert.equal(res.statusCode, 200);
  process.kill(-victim.pid!, 'SIGKILL');
  await assert.rejects(read(res), /aborted|ECONNRESET|socket hang up/);
  await remove(id);
});

test('the endpoint timeout bounds a request: 504', async () => {
  const id = await createLb({ workers: { min: 1, max: 1 }, timeout: 1000 });
  await eventually(async () => (await workersOf(id)).summary.idle === 1, 20_000);
  const answer = await call(id, '/sleep?ms=5000');
  assert.equal(answer.status, 504);
  assert.match(answer.json.detail, /timeout of 1000 ms/);
  await remove(id);
});

test('with no worker ready in time the request answers 503 with Retry-After', () =>
  withSettings({ lbHoldMs: '500' }, async () => {
    const id = await createLb({ workers: { min: 0, max: 1 }, env: { STARTUP_MS: '60000' } });
    const answer = await call(id, '/whoami');
    assert.equal(answer.status, 503);
    assert.equal(answer.headers['retry-after'], '5');
    assert.match(answer.json.detail, /within 500 ms/);
    const none = await createLb({ workers: { min: 0, max: 0 } });
    const closed = await call(none, '/whoami');
    assert.equal(closed.status, 503);
    assert.match(closed.json.detail, /workers.max 0/);
    await remove(none);
    const view = await workersOf(id);
    assert.equal(view.workers[0].status, 'INITIALIZING', 'a worker answering 204 is starting, not ready');
    await remove(id);
  }));

test('requests held for an endpoint that is then deleted are answered 404 at once, not 503 after the hold', async () => {
  // The worker is slow to get ready, so requests are held (for up to 30 s here).
  const id = await createLb({ workers: { min: 1, max: 1 }, env: { STARTUP_MS: '60000' } });
  const held = [call(id, '/whoami'), call(id, '/sleep?ms=10')];
  await eventually(async () => (await call(id, '/ping')).json.requests.held === 2, 10_000, 20);
  assert.equal((await remove(id)).statusCode, 204);
  const answers = await Promise.all(held);
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [404, 404],
    answers.map((answer) => answer.text).join('\n'),
  );
  assert.match(answers[0]!.json.detail, /was deleted/);
  assert.equal(answers[0]!.headers['retry-after'], undefined, 'no invitation to come back');
});
