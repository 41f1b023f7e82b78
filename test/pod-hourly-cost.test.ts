// A pod's hourly cost is what billing charges for an hour of it: a GPU pod (with container disk and
// a persistent volume) and a CPU pod run, stop, grow and end on a virtual clock, with the real pod
// service, meter, store (both stores) and billing, priced by a table of the test's own (no price
// is the default). At each state the cost the pod shows is compared with the hour billed after it,
// to the cent in the billing record and exactly in the priced usage records.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/catalog.js';
import type { CatalogData } from '../src/domain/catalog.js';
import { PriceTable } from '../src/domain/price-table.js';
import { silentLogger } from '../src/domain/logger.js';
import { Meter } from '../src/services/metering/meter.js';
import { PodUsageSource, podMetered } from '../src/services/metering/pod-source.js';
import { BillingService } from '../src/services/billing/billing.js';
import { steadyHourUnits, type PodHourlyCost } from '../src/services/billing/pod-rates.js';
import type { PodRecord } from '../src/store/pod-store.js';
import { ManualTime } from './support/manual-time.js';
import { memoryPodService } from './support/memory-pods.js';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import { until } from './support/runtime-rig.js';

const HOUR = 3_600_000;
const ACCOUNT = 'acct-pod-cost';
const time = new ManualTime();
const T0 = time.now();
const at = (hours: number) => T0 + hours * HOUR;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

// Prices of this test's own: an L4 at $1.37/h, cpu3c at $0.05 per vCPU-hour, container disk at
// $0.003 per GB-hour, a pod's volume at $0.005 per GB-hour running and $0.007 stopped.
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-pod-cost-'));
const catalogFile = join(dataDir, 'catalog.json');
const data = JSON.parse(readFileSync(new URL('./fixtures/billing-catalog.json', import.meta.url), 'utf8')) as CatalogData;
data.gpus.find((g) => g.id === 'NVIDIA L4')!.price.secure = 1.37;
data.cpus.find((c) => c.id === 'cpu3c')!.price.securePerVcpu = 0.05;
data.billing = { podDiskPerGbMonth: 2.16, podVolumePerGbMonth: { RUNNING: 3.6, STOPPED: 5.04 } };
writeFileSync(catalogFile, JSON.stringify(data));
const catalog = loadCatalog(catalogFile);
const prices = new PriceTable(catalog.data);

let testStore: TestStore;
let billing: BillingService;
/** The cost each pod showed at each step, and the hour that followed it. */
const shown: { step: string; podId: string; hour: number; cost: PodHourlyCost; units: bigint }[] = [];
const ids = { gpu: '', cpu: '' };
let terminated: PodHourlyCost;

before(async () => {
  testStore = await openTestStore(dataDir);
  const { store } = testStore;
  await store.ensureAccount({ id: ACCOUNT, name: 'pod cost', createdAt: new Date(T0).toISOString() });
  const meter = new Meter({
    store: store.usage,
    sources: [new PodUsageSource(store)],
    everyMs: HOUR,
    log: silentLogger,
    now: time.now,
    scheduler: time,
  });
  const { pods } = memoryPodService({ store, catalog, dataDir, now: time.now, settle: (pod, when) => meter.settle(podMetered(pod), when) });
  await pods.recover();
  const row = async (id: string) => (await store.pods.get(ACCOUNT, id))!;
  const show = (step: string, pod: PodRecord, hour: number) =>
    shown.push({ step, podId: pod.id, hour, cost: pods.costPerHour(pod), units: steadyHourUnits(pod, prices) });
  const runs = (id: string) => until(async () => (await row(id)).status === 'RUNNING', `pod ${id} to run`);
  const meterUpTo = async (hours: number) => {
    time.advance(at(hours) - time.now());
    await meter.runNow();
  };

  // Hour 0: 1 × L4 with 30 GB of container disk and a 50 GB volume; 4 vCPUs of cpu3c with 7 GB of disk.
  const gpu = await pods.create(ACCOUNT, {
    name: 'trainer',
    image: 'img',
    gpu: { id: 'NVIDIA L4', count: 1 },
    disk: 30,
    mounts: { persistent: { size: 50, path: '/workspace' } },
  } as never);
  const cpu = await pods.create(ACCOUNT, { name: 'notebook', image: 'img', cpu: { id: 'cpu3c', vcpuCount: 4 }, disk: 7 } as never);
  ids.gpu = gpu.id;
  ids.cpu = cpu.id;
  shown.push({ step: 'provisioning', podId: gpu.id, hour: -1, cost: pods.costPerHour(gpu), units: 0n });
  await runs(gpu.id);
  await runs(cpu.id);
  show('running', await row(gpu.id), 0);
  show('running', await row(cpu.id), 0);
  await meterUpTo(1);
  // Hour 1: the GPU pod stopped.
  show('stopped', await pods.act(ACCOUNT, gpu.id, 'stop'), 1);
  await meterUpTo(2);
  // Hour 2: the GPU pod's volume grown to 80 GB, and started again.
  await pods.update(ACCOUNT, gpu.id, { mounts: { persistent: { size: 80, path: '/workspace' } } } as never);
  await pods.act(ACCOUNT, gpu.id, 'start');
  await runs(gpu.id);
  show('grown, running again', await row(gpu.id), 2);
  await meterUpTo(3);
  terminated = pods.costPerHour(await pods.act(ACCOUNT, gpu.id, 'terminate'));
  billing = new BillingService(store.usage, prices, time.now);
});

after(async () => {
  await testStore.store.close();
  await testStore.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const costOf = (step: string, podId: string) => shown.find((s) => s.step === step && s.podId === podId)!;

test(`[${TEST_STORE}] a running pod costs its GPUs, container disk and volume per hour; stopped, its volume at the stopped price`, () => {
  // 1.37 + 30 GB × 0.003 + 50 GB × 0.005; stopped: 50 GB × 0.007; grown: 1.37 + 0.09 + 80 GB × 0.005.
  assert.deepEqual(costOf('provisioning', ids.gpu).cost, { current: 0.35, running: 1.71 }, 'before it runs, only its volume costs');
  assert.deepEqual(costOf('running', ids.gpu).cost, { current: 1.71, running: 1.71 });
  assert.deepEqual(costOf('stopped', ids.gpu).cost, { current: 0.35, running: 1.71 });
  assert.deepEqual(costOf('grown, running again', ids.gpu).cost, { current: 1.86, running: 1.86 });
  // 4 × 0.05 + 7 GB × 0.003, to the micro-dollar: not a whole number of cents.
  assert.deepEqual(costOf('running', ids.cpu).cost, { current: 0.221, running: 0.221 });
  assert.deepEqual(terminated, { current: 0, running: 1.86 }, 'a terminated pod costs nothing any more');
});

test(`[${TEST_STORE}] the hour after each state is billed what the pod showed`, async () => {
  for (const { step, podId, hour, cost } of shown.filter((s) => s.hour >= 0 && s.podId === ids.gpu)) {
    const { records } = await billing.pods(ACCOUNT, {
      startTime: iso(at(hour)),
      endTime: iso(at(hour + 1)),
      bucketSize: 'hour',
      id: podId,
    });
    assert.equal(records.length, 1, step);
    assert.equal(records[0]!.totalAmount, cost.current, `${step}: ${JSON.stringify(records[0])}`);
  }
});

test(`[${TEST_STORE}] exactly: the usage recorded for that hour, priced, is the pod's hourly cost before any rounding`, async () => {
  for (const { step, podId, hour, units } of shown.filter((s) => s.hour >= 0)) {
    const intervals = await testStore.store.usage.list({ accountId: ACCOUNT, ownerId: podId, fromMs: at(hour), toMs: at(hour + 1) });
    const billed = intervals.reduce((sum, i) => sum + prices.cost(i, at(hour), at(hour + 1)), 0n);
    assert.equal(billed, units, `${step} (${podId})`);
  }
});
