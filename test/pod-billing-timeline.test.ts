// Pod billing on a virtual clock: a GPU pod with container disk and a persistent volume is
// created, runs, stops, starts again, has its volume grown and is terminated; a CPU pod runs
// until its container exits by itself. The real pod service, pod usage source, meter and store
// (both stores: openTestStore) with hourly passes, a change of leader half-way (a second meter on
// a store connection of its own, the first one still metering once more) give exact amounts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/catalog.js';
import { PriceTable } from '../src/domain/price-table.js';
import { silentLogger } from '../src/domain/logger.js';
import { Meter } from '../src/services/metering/meter.js';
import { PodUsageSource, podMetered } from '../src/services/metering/pod-source.js';
import { BillingService } from '../src/services/billing/billing.js';
import type { Store } from '../src/store/store.js';
import { ManualTime } from './support/manual-time.js';
import { memoryPodService } from './support/memory-pods.js';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import { assertReferenceShape } from './support/reference-schemas.js';
import { until } from './support/runtime-rig.js';

const CATALOG = new URL('./fixtures/billing-catalog.json', import.meta.url).pathname;
const HOUR = 3_600_000;
const ACCOUNT = 'acct-pod-billing';
const time = new ManualTime();
const T0 = time.now();
const at = (hours: number) => T0 + hours * HOUR;
let dataDir: string;
let testStore: TestStore;
let secondStore: Store;
let billing: BillingService;
const ids = { gpu: '', cpu: '' };

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gantry-pod-billing-'));
  testStore = await openTestStore(dataDir);
  const { store } = testStore;
  await store.ensureAccount({ id: ACCOUNT, name: 'pod billing', createdAt: new Date(T0).toISOString() });
  const catalog = loadCatalog(CATALOG);
  const meterOn = (on: Store) =>
    new Meter({ store: on.usage, sources: [new PodUsageSource(on)], everyMs: HOUR, log: silentLogger, now: time.now, scheduler: time });
  const leader = { meter: meterOn(store) };
  const { pods, engine } = memoryPodService({
    store,
    catalog,
    dataDir,
    now: time.now,
    settle: (pod, when) => leader.meter.settle(podMetered(pod), when),
  });
  await pods.recover();
  const status = async (id: string) => (await store.pods.get(ACCOUNT, id))?.status;
  const hourly = async (hours: number) => {
    time.advance(at(hours) - time.now());
    await leader.meter.runNow();
  };

  // T0: 1 × L4, 20 GB of container disk, a 40 GB volume; and a CPU pod of 2 vCPUs with 10 GB of disk.
  const gpu = await pods.create(ACCOUNT, {
    name: 'trainer',
    image: 'img',
    gpu: { id: 'NVIDIA L4', count: 1 },
    disk: 20,
    mounts: { persistent: { size: 40, path: '/workspace' } },
  } as never);
  const cpu = await pods.create(ACCOUNT, { name: 'notebook', image: 'img', cpu: { id: 'cpu3c', vcpuCount: 2 }, disk: 10 } as never);
  ids.gpu = gpu.id;
  ids.cpu = cpu.id;
  await until(async () => (await status(gpu.id)) === 'RUNNING' && (await status(cpu.id)) === 'RUNNING', 'both pods to run');
  await hourly(1);
  // T0+1.5h: the CPU pod's container exits with 1 on its own.
  time.advance(at(1.5) - time.now());
  engine.exit(cpu.id, 1);
  await until(async () => (await status(cpu.id)) === 'ERROR', 'the exit to be recorded');
  await hourly(2);
  // T0+3h: the GPU pod is stopped; T0+5h started again.
  time.advance(at(3) - time.now());
  await pods.act(ACCOUNT, gpu.id, 'stop');
  await hourly(4);
  // T0+4h: another replica leads, on its own connection; the former leader meters once more meanwhile.
  secondStore = await testStore.reopen();
  const former = leader.meter;
  leader.meter = meterOn(secondStore);
  time.advance(at(4.5) - time.now());
  await Promise.all([former.runNow(), leader.meter.runNow()]);
  time.advance(at(5) - time.now());
  await pods.act(ACCOUNT, gpu.id, 'start');
  await until(async () => (await status(gpu.id)) === 'RUNNING', 'the GPU pod to run again');
  await hourly(6);
  // T0+6.5h: its volume grows to 100 GB while it runs.
  time.advance(at(6.5) - time.now());
  await pods.update(ACCOUNT, gpu.id, { mounts: { persistent: { size: 100, path: '/workspace' } } } as never);
  await hourly(7);
  // T0+8h: terminated. Later passes find nothing more to record.
  time.advance(at(8) - time.now());
  await pods.act(ACCOUNT, gpu.id, 'terminate');
  await hourly(9);
  await hourly(10);
  billing = new BillingService(store.usage, new PriceTable(catalog.data), time.now);
});

after(async () => {
  await secondStore?.close();
  await testStore.store.close();
  await testStore.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const DAY = { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z' };
const pick = ({ podId, gpuAmount, cpuAmount, diskAmount, totalAmount }: Record<string, unknown>) => ({
  podId,
  gpuAmount,
  cpuAmount,
  diskAmount,
  totalAmount,
});

test(`[${TEST_STORE}] a GPU pod's day: 6 h of L4, 6 h of container disk, its volume running, stopped and grown`, async () => {
  const result = await billing.pods(ACCOUNT, { ...DAY, id: ids.gpu });
  assertReferenceShape('ListPodBillingResponse', result);
  // L4: 6 h × $0.43. Disk: 20 GB × 6 h × $0.001/GB-h = 0.12; volume running: (40 × 4.5 + 100 × 1.5) GB-h × $0.001 = 0.33,
  // stopped: 40 GB × 2 h × $0.002 = 0.16.
  assert.deepEqual(result.records.map(pick), [{ podId: ids.gpu, gpuAmount: 2.58, cpuAmount: 0, diskAmount: 0.61, totalAmount: 3.19 }]);
  assert.deepEqual(result.metadata.query, { ...DAY, bucketSize: 'day', podId: ids.gpu });
  assert.equal(result.metadata.uniquePodCount, 1);
});

test(`[${TEST_STORE}] hour by hour: compute only while running, the stopped volume at its own price, the resize at the half hour`, async () => {
  const result = await billing.pods(ACCOUNT, {
    startTime: DAY.startTime,
    endTime: '2026-01-01T12:00:00Z',
    bucketSize: 'hour',
    id: ids.gpu,
  });
  assertReferenceShape('ListPodBillingResponse', result);
  assert.deepEqual(
    result.records.map((r) => [r.startTime, r.gpuAmount, r.diskAmount]),
    [
      ['2026-01-01T00:00:00Z', 0.43, 0.06],
      ['2026-01-01T01:00:00Z', 0.43, 0.06],
      ['2026-01-01T02:00:00Z', 0.43, 0.06],
      ['2026-01-01T03:00:00Z', 0, 0.08],
      ['2026-01-01T04:00:00Z', 0, 0.08],
      ['2026-01-01T05:00:00Z', 0.43, 0.06],
      // 20 GB of disk + 40 GB for half an hour + 100 GB for the other half, at $0.001/GB-h.
      ['2026-01-01T06:00:00Z', 0.43, 0.09],
      ['2026-01-01T07:00:00Z', 0.43, 0.12],
    ],
  );
});

test(`[${TEST_STORE}] a CPU pod that exited by itself is billed up to its exit, and nothing after`, async () => {
  const result = await billing.pods(ACCOUNT, { ...DAY, id: ids.cpu });
  // 2 vCPU × $0.03/h × 1.5 h; 10 GB × 1.5 h × $0.001/GB-h.
  assert.deepEqual(result.records.map(pick), [{ podId: ids.cpu, gpuAmount: 0, cpuAmount: 0.09, diskAmount: 0.02, totalAmount: 0.11 }]);
});

test(`[${TEST_STORE}] the account's pods together, and in the aggregate`, async () => {
  const all = await billing.pods(ACCOUNT, DAY);
  assert.deepEqual(all.metadata.totals, { totalAmount: 3.3, gpuAmount: 2.58, cpuAmount: 0.09, diskAmount: 0.63 });
  assert.equal(all.metadata.uniquePodCount, 2);
  const aggregate = await billing.aggregate(ACCOUNT, DAY);
  assertReferenceShape('ListBillingResponse', aggregate);
  const [day] = aggregate.records;
  assert.deepEqual([day!.podGpuAmount, day!.podCpuAmount, day!.podDiskAmount, day!.totalAmount], [2.58, 0.09, 0.63, 3.3]);
});

test(`[${TEST_STORE}] the records are contiguous per subject, never overlap, and end at terminate`, async () => {
  const intervals = await testStore.store.usage.list({ accountId: ACCOUNT, fromMs: at(-1), toMs: at(24) });
  const bySubject = new Map<string, { fromMs: number; toMs: number; state: string; quantity: number }[]>();
  for (const i of intervals) bySubject.set(i.subjectId, [...(bySubject.get(i.subjectId) ?? []), i]);
  const spans = (subject: string) =>
    bySubject.get(subject)!.map((i) => [(i.fromMs - T0) / HOUR, (i.toMs - T0) / HOUR, i.state, i.quantity]);
  assert.deepEqual(spans(`pod:${ids.gpu}:gpu`), [
    [0, 3, 'ACTIVE', 1],
    [5, 8, 'ACTIVE', 1],
  ]);
  assert.deepEqual(spans(`pod:${ids.gpu}:volume`), [
    [0, 3, 'ACTIVE', 40],
    [3, 5, 'FROZEN', 40],
    [5, 6.5, 'ACTIVE', 40],
    [6.5, 8, 'ACTIVE', 100],
  ]);
  assert.deepEqual(spans(`pod:${ids.cpu}:cpu`), [[0, 1.5, 'ACTIVE', 2]]);
});
