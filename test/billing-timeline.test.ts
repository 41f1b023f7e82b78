// Billing on a virtual clock: a known timeline of an endpoint's worker (started, running, frozen
// by FlashBoot, stopped), two network volumes (one resized, one deleted) and a pod-shaped source,
// metered by hourly passes and priced by a test catalog, gives exact amounts per bucket. It runs on
// both stores: the rig opens the one under test with openTestStore.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntimeRig, until, type RuntimeRig } from './support/runtime-rig.js';
import { TEST_STORE } from './support/test-store.js';
import { loadCatalog } from '../src/catalog/catalog.js';
import { PriceTable } from '../src/domain/price-table.js';
import { silentLogger } from '../src/domain/logger.js';
import { Meter } from '../src/services/metering/meter.js';
import { WorkerUsageSource } from '../src/services/metering/worker-source.js';
import { VolumeUsageSource, volumeMetered } from '../src/services/metering/volume-source.js';
import { BillingService } from '../src/services/billing/billing.js';
import { NetworkVolumeService } from '../src/services/network-volumes.js';
import { VolumeDirectories } from '../src/runtime/volumes/volume-directories.js';
import { PodUsageSource, type PodRow } from './support/pod-usage-source.js';

const CATALOG = new URL('./fixtures/billing-catalog.json', import.meta.url).pathname;
const HOUR = 3_600_000;
const at = (hours: number) => T0 + hours * HOUR;
let T0: number;
let rig: RuntimeRig;
let billing: BillingService;
let volumeRoot: string;
const ids: { endpoint: string; standard: string; fast: string } = { endpoint: '', standard: '', fast: '' };

before(async () => {
  rig = await startRuntimeRig({ catalogFile: CATALOG });
  T0 = rig.time.now();
  const { store, time, runtime } = rig;
  const catalog = loadCatalog(CATALOG);
  volumeRoot = mkdtempSync(join(tmpdir(), 'gantry-billing-volumes-'));
  const workers = new WorkerUsageSource();
  const pods: PodRow[] = [
    {
      id: 'pod-1',
      accountId: rig.accountId,
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 1,
      cpuFlavor: null,
      vcpuCount: 0,
      diskGb: 20,
      startedAt: at(1),
      stoppedAt: at(3),
    },
  ];
  const meter = new Meter({
    store: store.usage,
    sources: [workers, new VolumeUsageSource(store), new PodUsageSource(async () => pods.filter((p) => p.startedAt <= time.now()))],
    everyMs: HOUR,
    log: silentLogger,
    now: time.now,
    scheduler: time,
  });
  runtime.usage.listen(workers.observe);
  const volumes = new NetworkVolumeService(store, catalog, new VolumeDirectories(volumeRoot), (volume, when) =>
    meter.settle(volumeMetered(volume), when),
  );
  billing = new BillingService(store.usage, new PriceTable(catalog.data), time.now);

  // T0: a 2-vCPU worker with 10 GB of container disk starts; a 100 GB standard volume is made.
  const endpoint = await rig.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 }, flashboot: 'PRIORITY_FLASHBOOT', disk: 10 });
  ids.endpoint = endpoint.id;
  ids.standard = (await volumes.create(rig.accountId, { name: 'std', size: 100, dataCenter: 'US-TX-3' }, new Date(at(0)))).id;
  await runtime.tick();
  const [worker] = runtime.workersOf(endpoint.id);
  assert.ok(worker, 'the minimum worker started');
  const hourly = async (hours: number) => {
    time.advance(at(hours) - time.now());
    await meter.runNow();
  };
  await hourly(1);
  await hourly(2);
  // T0+2h: a 50 GB high-performance volume.
  ids.fast = (
    await volumes.create(rig.accountId, { name: 'fast', size: 50, dataCenter: 'EU-RO-1', type: 'HIGH_PERFORMANCE' }, new Date(at(2)))
  ).id;
  for (const h of [3, 4, 5, 6]) await hourly(h);
  // T0+6h: the standard volume grows to 200 GB; T0+8h the other is deleted.
  await volumes.update(rig.accountId, ids.standard, { size: 200 }, new Date(at(6)));
  await hourly(7);
  await hourly(8);
  await volumes.delete(rig.accountId, ids.fast, new Date(at(8)));
  await hourly(9);
  // T0+10h: scaled to zero, the idle worker is frozen; 30 minutes later it has been kept long enough and stops.
  time.advance(at(10) - 10_000 - time.now());
  rig.ping(worker.workerId, endpoint.id);
  await meter.runNow();
  await store.updateEndpoint({ ...endpoint, revision: 2, spec: { ...endpoint.spec, workers: { min: 0, max: 1, idleTimeout: 5 } } }, 1);
  time.advance(10_000);
  rig.ping(worker.workerId, endpoint.id);
  await runtime.tick();
  assert.deepEqual(rig.provider.frozen, [worker.workerId], 'frozen at T0+10h');
  time.advance(30 * 60_000);
  await runtime.tick();
  await until(() => !runtime.isManaged(worker.workerId), 'the frozen worker to stop');
  await hourly(11);
});

after(async () => {
  await rig.close();
  rmSync(volumeRoot, { recursive: true, force: true });
});

test(`[${TEST_STORE}] an endpoint's worker: 10 h running and 30 min frozen (at 25%) on 2 vCPUs, 10 GB of disk throughout`, async () => {
  const day = await billing.serverless(rig.accountId, { startTime: new Date(at(0)).toISOString() });
  assert.deepEqual(day.records, [
    {
      startTime: '2026-01-01T00:00:00Z',
      endTime: '2026-01-02T00:00:00Z',
      serverlessId: ids.endpoint,
      // 2 vCPU × $0.04/h × 10 h + 2 × 0.04 × 0.5 h × 25%; 10 GB × 10.5 h × $1.44/GB-month (720 h).
      totalAmount: 1.02,
      gpuAmount: 0,
      cpuAmount: 0.81,
      diskAmount: 0.21,
      feeAmount: 0,
    },
  ]);
  assert.equal(day.metadata.uniqueServerlessCount, 1);
  const hours = await billing.serverless(rig.accountId, {
    startTime: new Date(at(0)).toISOString(),
    endTime: new Date(at(12)).toISOString(),
    bucketSize: 'hour',
    id: ids.endpoint,
  });
  assert.equal(hours.records.length, 11, 'one record per hour with usage');
  assert.deepEqual(
    hours.records.map((r) => [r.startTime, r.cpuAmount, r.diskAmount]),
    [
      ...Array.from({ length: 10 }, (_, h) => [new Date(at(h)).toISOString().replace('.000Z', 'Z'), 0.08, 0.02]),
      ['2026-01-01T10:00:00Z', 0.01, 0.01],
    ],
  );
  assert.deepEqual(hours.metadata.totals, day.metadata.totals, 'hours add up to the day');
  assert.deepEqual(hours.metadata.query, {
    startTime: '2026-01-01T00:00:00Z',
    endTime: '2026-01-01T12:00:00Z',
    bucketSize: 'hour',
    serverlessId: ids.endpoint,
  });
});

test(`[${TEST_STORE}] network volumes: billed by size and tier up to a resize and a delete, exactly`, async () => {
  const result = await billing.networkVolumes(rig.accountId, { lastN: 1, bucketSize: 'month' });
  const byId = Object.fromEntries(result.records.map((r) => [r.networkVolumeId, r]));
  // 100 GB × 6 h + 200 GB × 5 h at $0.72/GB-month; 50 GB × 6 h at $1.44/GB-month.
  assert.deepEqual(
    [byId[ids.standard]!.standardAmount, byId[ids.standard]!.highPerformanceAmount, byId[ids.standard]!.totalAmount],
    [1.6, 0, 1.6],
  );
  assert.deepEqual([byId[ids.fast]!.standardAmount, byId[ids.fast]!.highPerformanceAmount, byId[ids.fast]!.totalAmount], [0, 0.6, 0.6]);
  assert.deepEqual(result.metadata.totals, { totalAmount: 2.2, standardAmount: 1.6, highPerformanceAmount: 0.6 });
  assert.equal(result.metadata.uniqueNetworkVolumeCount, 2);
  const one = await billing.networkVolumes(rig.accountId, { lastN: 1, id: ids.fast });
  assert.deepEqual(
    one.records.map((r) => r.networkVolumeId),
    [ids.fast],
  );
});

test(`[${TEST_STORE}] a pod-shaped source: one L4 and 20 GB of disk for 2 h`, async () => {
  const result = await billing.pods(rig.accountId, { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z' });
  // 1 × $0.43/h × 2 h; 20 GB × 2 h × $0.72/GB-month.
  assert.deepEqual(
    result.records.map(({ podId, gpuAmount, cpuAmount, diskAmount, totalAmount }) => ({
      podId,
      gpuAmount,
      cpuAmount,
      diskAmount,
      totalAmount,
    })),
    [{ podId: 'pod-1', gpuAmount: 0.86, cpuAmount: 0, diskAmount: 0.04, totalAmount: 0.9 }],
  );
});

test(`[${TEST_STORE}] the aggregate adds every family per bucket, and buckets without usage are 0`, async () => {
  const result = await billing.aggregate(rig.accountId, { startTime: '2025-12-31T00:00:00Z', endTime: '2026-01-02T00:00:00Z' });
  assert.equal(result.records.length, 2);
  assert.equal(result.records[0]!.totalAmount, 0);
  const day = result.records[1]!;
  assert.equal(day.serverlessCpuAmount, 0.81);
  assert.equal(day.serverlessDiskAmount, 0.21);
  assert.equal(day.podGpuAmount, 0.86);
  assert.equal(day.podDiskAmount, 0.04);
  assert.equal(day.storageStandardAmount, 1.6);
  assert.equal(day.storageHighPerformanceAmount, 0.6);
  assert.equal(day.totalAmount, 4.12);
  const { startTime: _start, endTime: _end, ...amounts } = day;
  assert.deepEqual(result.metadata.totals, amounts, 'the totals are the records added up');
});
