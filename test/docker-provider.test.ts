// Gantry runs endpoints' images as containers on a real Docker engine: the image's own command
// or the endpoint's overrides, env, crashes, scale to zero, FlashBoot, load-balancing workers
// and images that cannot be pulled. Needs an engine (skipped, visibly, without one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, runsync, startLive } from './support/live.js';
import { lbFetch } from './support/lb-client.js';
import { containersOf, docker, dockerSkipReason, removeContainersOf, useLiveOnDocker, WORKER_IMAGE } from './support/docker.js';
import { freePort } from '../src/runtime/free-ports.js';

const skip = await dockerSkipReason();
// Gantry's own environment must not reach workers.
process.env.GANTRY_TEST_SECRET = 'not for workers';
const g = useLiveOnDocker(skip, {
  scaleIntervalMs: '100',
  workerPingIntervalMs: '200',
  jobLeaseMs: '3000',
  workerStopGraceMs: '2000',
  crashBackoffMs: '200',
  lbHealthIntervalMs: '100',
});

const workersOf = async (id: string) => (await g.call('GET', `/v2/serverless/${id}/workers`)).json();
/** What the endpoint's (one) running worker printed. */
const logsOf = (id: string) => {
  const [worker] = g.services.runtime!.workersOf(id);
  assert.ok(worker, 'a worker is running');
  return g.services.runtime!.logs(id, worker.workerId, 200).map((l) => l.line);
};
async function createEndpoint(extra: Record<string, unknown>): Promise<string> {
  const res = await g.call('POST', '/v2/serverless', {
    name: 'docker',
    type: 'QUEUE',
    image: WORKER_IMAGE,
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min: 0, max: 1, idleTimeout: 1 },
    ...extra,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}
const containersOfEndpoint = async (id: string) => (await containersOf(g.dataDir)).filter((c) => c.Labels['gantry.endpoint'] === id);
const remove = (id: string) => g.call('DELETE', `/v2/serverless/${id}`);

test('an endpoint with only an image runs it as built, completes jobs, and scales back to zero', { skip }, async () => {
  const id = await createEndpoint({ env: { GREETING: 'hi' } });
  const result = await runsync(g, id, { echo: 'from a container' });
  assert.deepEqual([result.status, result.output], ['COMPLETED', 'from a container']);
  const [container] = await containersOfEndpoint(id);
  assert.ok(container, 'the worker is a container');
  const info = await docker.getContainer(container.Id).inspect();
  assert.deepEqual([info.Path, ...info.Args], ['node', '/app/examples/echo-worker.js'], "the image's ENTRYPOINT and CMD");
  assert.equal(info.HostConfig.NetworkMode, 'host');
  assert.equal(info.HostConfig.NanoCpus, Math.min(2, (await docker.info()).NCPU) * 1e9);
  assert.equal(container.Labels.gantry, '1');
  assert.ok(container.Labels['gantry.worker'] && container.Labels['gantry.replica']);
  assert.ok(info.Config.Env.includes('GREETING=hi'), "the endpoint's env");
  assert.ok(
    info.Config.Env.some((e) => e.startsWith('RUNPOD_WEBHOOK_GET_JOB=')),
    'the worker-protocol variables',
  );
  assert.ok(!info.Config.Env.some((e) => e.startsWith('GANTRY_TEST_SECRET')), "nothing of Gantry's own environment");
  await eventually(async () => (await containersOfEndpoint(id)).length === 0 && (await workersOf(id)).summary.total === 0, 20_000, 100);
  await remove(id);
});

test("an entrypoint replaces the image's ENTRYPOINT and drops its CMD; env reaches the worker", { skip }, async () => {
  const script = 'echo "greeting=$GREETING args=$#"; exec node /app/examples/echo-worker.js';
  const id = await createEndpoint({
    entrypoint: ['/bin/sh', '-c', script, 'sh'],
    env: { GREETING: 'hello' },
    workers: { min: 0, max: 1, idleTimeout: 30 },
  });
  const result = await runsync(g, id, { echo: 1 });
  assert.equal(result.status, 'COMPLETED');
  // The container's output reaches the logs through Docker's stream, which may trail the job's result.
  await eventually(async () => logsOf(id).includes('greeting=hello args=0'), 10_000, 50).catch(() =>
    assert.fail(`the image's CMD was appended, or the line never came:\n${logsOf(id).join('\n')}`),
  );
  const lines = logsOf(id);
  const starting = lines.findIndex((line) => line.startsWith('starting container gantry-'));
  assert.ok(starting >= 0 && starting < lines.indexOf('greeting=hello args=0'), `Gantry's line comes first:\n${lines.join('\n')}`);
  await remove(id);
});

test("a cmd replaces only the image's CMD; the worker's output reaches its logs", { skip }, async () => {
  const cmd = ['--input-type=module', '-e', 'console.error("cmd override ran"); await import("/app/examples/echo-worker.js")'];
  const id = await createEndpoint({ cmd, workers: { min: 0, max: 1, idleTimeout: 30 } });
  assert.equal((await runsync(g, id, { echo: 2 })).status, 'COMPLETED');
  await eventually(async () => logsOf(id).includes('cmd override ran'), 10_000, 50).catch(() => assert.fail(logsOf(id).join('\n')));
  await remove(id);
});

test('a container that dies mid-job has its job requeued at once and is replaced', { skip }, async () => {
  const id = await createEndpoint({});
  const job = (await (
    await fetch(`${g.url}/v2/${id}/run`, {
      method: 'POST',
      headers: { authorization: g.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { sleepMs: 4000, echo: 'finished anyway' } }),
    })
  ).json()) as { id: string };
  const statusOf = async () =>
    (await (await fetch(`${g.url}/v2/${id}/status/${job.id}`, { headers: { authorization: g.adminKey } })).json()) as {
      status: string;
      retries?: number;
      output?: unknown;
    };
  await eventually(async () => (await statusOf()).status === 'IN_PROGRESS', 30_000, 50);
  const [victim] = await containersOfEndpoint(id);
  await docker.getContainer(victim!.Id).kill();
  const requeued = await eventually(
    async () => {
      const s = await statusOf();
      return s.retries === 1 && s;
    },
    2500,
    50,
  );
  assert.ok(['IN_QUEUE', 'IN_PROGRESS'].includes(requeued.status), 'back in the queue before any lease could lapse');
  const final = await eventually(
    async () => {
      const s = await statusOf();
      return s.status === 'COMPLETED' && s;
    },
    30_000,
    100,
  );
  assert.equal(final.output, 'finished anyway');
  assert.ok(
    g.services.runtime!.logs(id, victim!.Labels['gantry.worker']!, 5).some((l) => l.line === 'exited: code 137'),
    'its log says how it ended',
  );
  await remove(id);
});

test('FlashBoot pauses an idle container and resumes the same one for the next job', { skip }, async () => {
  const id = await createEndpoint({ flashboot: 'FLASHBOOT' });
  assert.equal((await runsync(g, id, { echo: 'first' })).status, 'COMPLETED');
  const paused = await eventually(
    async () => {
      const [c] = await containersOfEndpoint(id);
      return c?.State === 'paused' && c;
    },
    20_000,
    100,
  );
  const second = await runsync(g, id, { echo: 'second' });
  assert.deepEqual([second.status, second.output], ['COMPLETED', 'second']);
  const [resumed] = await containersOfEndpoint(id);
  assert.equal(resumed?.Id, paused.Id, 'the paused container served the job');
  assert.equal(resumed?.State, 'running');
  await remove(id);
  await eventually(async () => (await containersOfEndpoint(id)).length === 0, 20_000, 100);
});

test('a load-balancing worker container listens on the endpoint PORT on the host network', { skip }, async () => {
  const port = await freePort();
  const res = await g.call('POST', '/v2/serverless', {
    name: 'docker-http',
    type: 'LOAD_BALANCER',
    image: WORKER_IMAGE,
    cmd: ['/app/examples/http-worker.js'],
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min: 0, max: 1, idleTimeout: 1 },
    env: { PORT: String(port) },
    scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().id as string;
  const answer = await lbFetch({ url: g.url, path: `/v2/lb/${id}/whoami`, headers: { authorization: `Bearer ${g.adminKey}` } });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.port, port, 'exactly the endpoint PORT');
  assert.match(answer.json.worker, new RegExp(`^${id.slice(0, 6)}-`));
  await remove(id);
  await eventually(async () => (await containersOfEndpoint(id)).length === 0, 20_000, 100);
});

test('an image that cannot be pulled gives a crash-loop reason naming the image and the registry', { skip }, async () => {
  const id = await createEndpoint({ image: 'gantry-test/does-not-exist:1', workers: { min: 1, max: 1 } });
  const view = await eventually(
    async () => {
      const v = await workersOf(id);
      return v.crashLoop?.lastReason && v;
    },
    30_000,
    100,
  );
  process.stdout.write(`# crash-loop reason: ${view.crashLoop.lastReason}\n`);
  assert.match(view.crashLoop.lastReason, /cannot pull image 'gantry-test\/does-not-exist:1' from docker\.io: /);
  const health = await g.call('GET', `/v2/${id}/health`);
  assert.equal(health.statusCode, 200, health.body);
  assert.match(
    health.json().crashLoop?.lastReason ?? '',
    /cannot pull image 'gantry-test\/does-not-exist:1'/,
    'the health answer says why too',
  );
  assert.equal((await containersOfEndpoint(id)).length, 0);
  await remove(id);
});

test('bridge networking: a load-balancing worker is reached through its PORT published on loopback', { skip }, async () => {
  const bridged = await startLive({
    workerProvider: 'docker',
    dockerNetwork: 'bridge',
    scaleIntervalMs: '100',
    lbHealthIntervalMs: '100',
    workerStopGraceMs: '1000',
  });
  try {
    const res = await bridged.call('POST', '/v2/serverless', {
      name: 'docker-bridge',
      type: 'LOAD_BALANCER',
      image: WORKER_IMAGE,
      cmd: ['/app/examples/http-worker.js'],
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
      workers: { min: 0, max: 2, idleTimeout: 1 },
      env: { PORT: '8000', HOST: '0.0.0.0' },
      ports: ['8000/http', '8888/http'],
      scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().id as string;
    const answer = await lbFetch({
      url: bridged.url,
      path: `/v2/lb/${id}/whoami`,
      headers: { authorization: `Bearer ${bridged.adminKey}` },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.port, 8000, 'the worker listens on the endpoint PORT inside its own network');
    const [container] = (await containersOf(bridged.dataDir)).filter((c) => c.Labels['gantry.endpoint'] === id);
    assert.equal(container?.HostConfig.NetworkMode, 'bridge');
    assert.ok(
      container?.Ports.some((p) => p.PrivatePort === 8000 && p.IP === '127.0.0.1'),
      'published on loopback only',
    );
    const extra = container?.Ports.find((p) => p.PrivatePort === 8888);
    assert.equal(extra?.IP, '127.0.0.1', "the endpoint's other port is published on loopback too");
    const [worker] = bridged.services.runtime!.workersOf(id);
    const logs = bridged.services
      .runtime!.logs(id, worker!.workerId, 200)
      .map((l) => l.line)
      .join('\n');
    assert.match(logs, new RegExp(`port 8888/tcp published on 127\\.0\\.0\\.1:${extra!.PublicPort}`));
  } finally {
    const dataDir = bridged.dataDir;
    await bridged.close();
    await removeContainersOf(dataDir);
  }
});
