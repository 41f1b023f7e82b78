// Pod billing end to end on a real Docker engine: a GPU pod (from a capacity file) with container
// disk and a persistent volume runs the test image, is stopped, started, grown and terminated;
// the billing routes then answer its GPU time and its disk (container and volume) under its id,
// in the hosted shapes; a run that ended shows without waiting for the metering interval. Prices
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
