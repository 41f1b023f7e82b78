// Pod billing end to end on a real Docker engine: a GPU pod (from a capacity file) with container
// disk and a persistent volume runs the test image, is stopped, started, grown and terminated;
// the billing routes then answer its GPU time and its disk (container and volume) under its id,
// in the hosted shapes; a run that ended shows without waiting for the metering interval. A pod's
// hourly cost over REST (cost) and GraphQL (costPerHr) is those same prices. Prices
// are raised in a catalog of the test's own (an L4 at $3600/h), so seconds of use are whole
// cents. Needs an engine and the test image; skipped, visibly, without them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/live.js';
import { dockerSkipReason, useLiveOnDocker, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG } from './support/harness.js';
import { assertReferenceShape } from './support/reference-schemas.js';
import { graphql, sdkRead, SDK_GET_POD, SDK_GET_PODS } from './support/graphql-clients.js';

const skip = await dockerSkipReason();
const GPU = 'NVIDIA L4';
const dir = mkdtempSync(join(tmpdir(), 'gantry-pod-billing-'));
const capacityFile = join(dir, 'capacity.json');
writeFileSync(capacityFile, JSON.stringify({ gpus: [{ type: GPU, count: 1, cudaVersion: '12.4' }] }));
const catalogFile = join(dir, 'catalog.json');
const catalog = JSON.parse(readFileSync(FIXTURE_CATALOG, 'utf8')) as {
  gpus: { id: string; price: { secure: number } }[];
  billing?: object;
};
catalog.gpus.find((g) => g.id === GPU)!.price.secure = 3600;
catalog.billing = { podDiskPerGbMonth: 720, podVolumePerGbMonth: { RUNNING: 720, STOPPED: 1440 } };
writeFileSync(catalogFile, JSON.stringify(catalog));

const SCRIPT = `require('node:http').createServer((q, s) => s.end('up')).listen(8888, () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));`;

const g = useLiveOnDocker(skip, { catalogFile, capacityFile, workerStopGraceMs: '2000' });
after(() => rmSync(dir, { recursive: true, force: true }));

const podStatus = async (id: string) => (await g.call('GET', `/v2/pods/${id}`)).json().status as string;

test('a pod that ran, stopped, ran again and was terminated is billed: its GPU time and its disk, under its id', { skip }, async () => {
  const created = await g.call('POST', '/v2/pods', {
    name: 'billed',
    image: WORKER_IMAGE,
    cmd: ['-e', SCRIPT],
    gpu: { id: GPU, count: 1 },
    disk: 5,
    mounts: { persistent: { size: 20, path: '/workspace' } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  await eventually(async () => (await podStatus(id)) === 'RUNNING', 60_000, 200);
  const stopped = await g.call('POST', `/v2/pods/${id}/action`, { action: 'stop' });
  assert.equal(stopped.json().status, 'EXITED', stopped.body);
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const billingOf = async (podId: string) =>
    g.call('GET', `/v2/billing/pods?podId=${podId}&bucketSize=hour&startTime=${encodeURIComponent(since)}`);
  // A run that ended is recorded soon, not at the next metering interval (a minute here).
  await eventually(async () => (await billingOf(id)).json().metadata.totals.gpuAmount > 0, 10_000, 100);

  // Started again, its volume may grow (billed at the new size from then on, no restart needed), never shrink.
  assert.equal((await g.call('POST', `/v2/pods/${id}/action`, { action: 'start' })).statusCode, 200);
  await eventually(async () => (await podStatus(id)) === 'RUNNING', 60_000, 200);
  const shrink = await g.call('PATCH', `/v2/pods/${id}`, { mounts: { persistent: { size: 12, path: '/workspace' } } });
  assert.equal(shrink.statusCode, 400, shrink.body);
  const grown = await g.call('PATCH', `/v2/pods/${id}`, { mounts: { persistent: { size: 30, path: '/workspace' } } });
  assert.equal(grown.statusCode, 200, grown.body);
  assert.deepEqual(grown.json().mounts, { persistent: { size: 30, path: '/workspace' } });
  assert.deepEqual(grown.json().pendingRestart, []);
  const terminated = await g.call('DELETE', `/v2/pods/${id}`);
  assert.equal(terminated.statusCode, 204, terminated.body);

  const pods = await billingOf(id);
  assert.equal(pods.statusCode, 200, pods.body);
  const body = pods.json();
  assertReferenceShape('ListPodBillingResponse', body);
  assert.ok(body.records.length >= 1, pods.body);
  for (const record of body.records) assert.equal(record.podId, id);
  const { totals } = body.metadata;
  assert.ok(totals.gpuAmount > 0, `the GPU time is billed: ${pods.body}`);
  assert.equal(totals.cpuAmount, 0, 'a GPU pod has no CPU amount');
  assert.ok(totals.diskAmount > 0, `the container disk and the volume are billed: ${pods.body}`);
  assert.equal(Math.round((totals.gpuAmount + totals.diskAmount) * 100), Math.round(totals.totalAmount * 100));
  assert.equal(body.metadata.uniquePodCount, 1);
  assert.equal(body.metadata.query.podId, id);

  const all = await g.call('GET', `/v2/billing?bucketSize=hour&startTime=${encodeURIComponent(since)}`);
  assertReferenceShape('ListBillingResponse', all.json());
  assert.equal(all.json().metadata.totals.podGpuAmount, totals.gpuAmount, 'the aggregate counts the pod too');
  assert.equal(all.json().metadata.totals.podDiskAmount, totals.diskAmount);

  const other = await billingOf('someone-else');
  assert.deepEqual(other.json().records, [], 'another id has no records');
});

test("a pod's hourly cost, over REST and GraphQL, is its prices: running, stopped and terminated", { skip }, async () => {
  // An L4 at $3600/h, 5 GB of container disk and a 20 GB volume at $1/GB-h running, $2/GB-h stopped.
  const RUNNING = 3600 + 5 + 20;
  const STOPPED = 2 * 20;
  const created = sdkRead(
    await graphql(
      g,
      `mutation { podFindAndDeployOnDemand( input: { name: "priced", imageName: "${WORKER_IMAGE}", cloudType: ALL, gpuTypeId: "${GPU}", gpuCount: 1, containerDiskInGb: 5, volumeInGb: 20, volumeMountPath: "/workspace", dockerArgs: "-e 'setInterval(() => {}, 1000)'" } ) { id costPerHr } }`,
    ),
  ).podFindAndDeployOnDemand as { id: string; costPerHr: number };
  const { id } = created;
  assert.equal(created.costPerHr, RUNNING, 'costPerHr is the price of running it, also before it runs');
  const rest = async () => {
    const res = await g.call('GET', `/v2/pods/${id}`);
    assertReferenceShape('Pod', res.json());
    return res.json() as { status: string; cost: number };
  };
  const graphqlCost = async () => {
    const one = sdkRead(await graphql(g, SDK_GET_POD(id))).pod as { costPerHr: number };
    const listed = sdkRead(await graphql(g, SDK_GET_PODS)).myself as { pods: { id: string; costPerHr: number }[] };
    assert.equal(listed.pods.find((p) => p.id === id)!.costPerHr, one.costPerHr, 'myself.pods says the same');
    return one.costPerHr;
  };

  await eventually(async () => (await rest()).status === 'RUNNING', 60_000, 200);
  assert.equal((await rest()).cost, RUNNING, 'running: its GPU, container disk and volume');
  assert.equal(await graphqlCost(), RUNNING);
  const listed = await g.call('GET', '/v2/pods');
  assertReferenceShape('ListPodsResponse', listed.json());
  assert.equal((listed.json().pods as { id: string; cost: number }[]).find((p) => p.id === id)!.cost, RUNNING);

  const stopped = await g.call('POST', `/v2/pods/${id}/action`, { action: 'stop' });
  assertReferenceShape('Pod', stopped.json());
  assert.equal(stopped.json().cost, STOPPED, 'stopped: its volume at the stopped price, as billed');
  assert.equal((await rest()).cost, STOPPED);
  assert.equal(await graphqlCost(), RUNNING, 'costPerHr stays the price of running it');

  const terminated = await g.call('POST', `/v2/pods/${id}/action`, { action: 'terminate' });
  assert.equal(terminated.statusCode, 204, terminated.body);
  assert.equal(terminated.body, '', 'terminate answers no body, as DELETE');
  assert.equal((await g.call('GET', `/v2/pods/${id}`)).statusCode, 404);
});
