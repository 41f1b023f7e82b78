// The Billing routes over HTTP: every response has the hosted API's shape (checked against the
// structure of its response schemas), filters and windows apply, usage stays with its account,
// contradictory queries answer 400 problems and values their schema refuses 422.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { problem, startHarness, type Harness } from './support/harness.js';
import type { UsageInterval } from '../src/domain/usage.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const shapes = JSON.parse(readFileSync(new URL('./fixtures/billing-response-shapes.json', import.meta.url), 'utf8'));
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ $id: 'billing', definitions: shapes.definitions });
const HOUR = 3_600_000;
let h: Harness;
let today: number;

function shaped(route: string, body: unknown): void {
  const validate = ajv.getSchema(`billing#/definitions/${route}`)!;
  assert.ok(validate(body), `${route}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body)}`);
}

before(async () => {
  h = await startHarness({ catalogFile: new URL('./fixtures/billing-catalog.json', import.meta.url).pathname });
  const now = Date.now();
  today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
  const base = { accountId: h.adminAccountId, state: 'ACTIVE' as const, fromMs: today - 24 * HOUR, toMs: today - 22 * HOUR };
  const usage: UsageInterval[] = [
    // Yesterday 00:00-02:00: an endpoint's GPU worker, a pod and a standard volume.
    { ...base, subjectId: 'worker:w1:gpu', family: 'SERVERLESS', ownerId: 'ep-a', meter: 'GPU', resource: 'NVIDIA L4', quantity: 1 },
    { ...base, subjectId: 'pod:p1:cpu', family: 'POD', ownerId: 'pod-a', meter: 'CPU', resource: 'cpu3c', quantity: 4 },
    { ...base, subjectId: 'volume:v1', family: 'NETWORK_VOLUME', ownerId: 'vol-a', meter: 'VOLUME', resource: 'STANDARD', quantity: 500 },
    // Another endpoint's worker, yesterday 01:00-02:00 and frozen 02:00-04:00.
    {
      ...base,
      subjectId: 'worker:w2:cpu',
      family: 'SERVERLESS',
      ownerId: 'ep-b',
      meter: 'CPU',
      resource: 'cpu3c',
      quantity: 2,
      fromMs: base.fromMs + HOUR,
    },
    {
      ...base,
      subjectId: 'worker:w2:cpu',
      family: 'SERVERLESS',
      ownerId: 'ep-b',
      meter: 'CPU',
      resource: 'cpu3c',
      quantity: 2,
      state: 'FROZEN',
      fromMs: base.toMs,
      toMs: base.toMs + 2 * HOUR,
    },
  ];
  await h.services.store.usage.append(usage);
});
after(() => h.close());

const get = async (path: string, key?: string) => {
  const res = await h.call('GET', path, undefined, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

test('serverless billing: per endpoint and bucket, GPU and CPU apart, frozen time at its rate; filtered by serverlessId', async () => {
  const body = await get('/v2/billing/serverless?lastN=2');
  shaped('ListServerlessBillingResponse', body);
  const byId = Object.fromEntries(body.records.map((r: { serverlessId: string }) => [r.serverlessId, r]));
  // 1 L4 × $0.80/h × 2 h; 2 cpu3c vCPUs × $0.04/h × (1 h + 2 h × 25%).
  assert.equal(byId['ep-a'].gpuAmount, 1.6);
  assert.equal(byId['ep-b'].cpuAmount, 0.12);
  assert.deepEqual(body.metadata.totals, { totalAmount: 1.72, gpuAmount: 1.6, cpuAmount: 0.12, diskAmount: 0, feeAmount: 0 });
  assert.equal(body.metadata.uniqueServerlessCount, 2);
  assert.equal(body.metadata.query.serverlessId, null);
  const one = await get('/v2/billing/serverless?lastN=2&serverlessId=ep-b&bucketSize=hour');
  shaped('ListServerlessBillingResponse', one);
  assert.deepEqual(
    one.records.map((r: { serverlessId: string; cpuAmount: number }) => [r.serverlessId, r.cpuAmount]),
    [],
    'the last two hours hold none of it',
  );
  const hours = await get(
    `/v2/billing/serverless?serverlessId=ep-b&bucketSize=hour&startTime=${iso(today - 24 * HOUR)}&endTime=${iso(today)}`,
  );
  shaped('ListServerlessBillingResponse', hours);
  assert.deepEqual(
    hours.records.map((r: { startTime: string; cpuAmount: number }) => [r.startTime, r.cpuAmount]),
    [
      [iso(today - 23 * HOUR), 0.08],
      [iso(today - 22 * HOUR), 0.02],
      [iso(today - 21 * HOUR), 0.02],
    ],
  );
  assert.equal(hours.metadata.query.serverlessId, 'ep-b');
});

test('pods, network volumes, public endpoints and clusters answer in their shapes', async () => {
  const pods = await get('/v2/billing/pods?lastN=7');
  shaped('ListPodBillingResponse', pods);
  // 4 vCPUs × $0.03/h × 2 h.
  assert.deepEqual(pods.metadata.totals, { totalAmount: 0.24, gpuAmount: 0, cpuAmount: 0.24, diskAmount: 0 });
  assert.equal(pods.metadata.uniquePodCount, 1);
  const volumes = await get('/v2/billing/network-volumes?lastN=7&networkVolumeId=vol-a');
  shaped('ListNetworkVolumeBillingResponse', volumes);
  // 500 GB × 2 h × $0.72 per GB-month of 720 h.
  assert.deepEqual(volumes.metadata.totals, { totalAmount: 1, standardAmount: 1, highPerformanceAmount: 0 });
  const endpoints = await get('/v2/billing/endpoints?lastN=3');
  shaped('ListEndpointBillingResponse', endpoints);
  assert.equal(endpoints.records.length, 3);
  assert.deepEqual(endpoints.metadata.totals, { totalAmount: 0 });
  const clusters = await get('/v2/billing/clusters?clusterId=c1');
  shaped('ListClusterBillingResponse', clusters);
  assert.deepEqual([clusters.records, clusters.metadata.query.clusterId], [[], 'c1']);
});

test('the aggregate: one record per bucket of the window, every family added up', async () => {
  const body = await get(`/v2/billing?startTime=${iso(today - 48 * HOUR)}&endTime=${iso(today)}`);
  shaped('ListBillingResponse', body);
  assert.deepEqual(
    body.records.map((r: { startTime: string; totalAmount: number }) => [r.startTime, r.totalAmount]),
    [
      [iso(today - 48 * HOUR), 0],
      [iso(today - 24 * HOUR), 2.96],
    ],
  );
  assert.equal(body.metadata.totals.serverlessGpuAmount, 1.6);
  assert.equal(body.metadata.totals.podCpuAmount, 0.24);
  assert.equal(body.metadata.totals.storageStandardAmount, 1);
  assert.deepEqual(body.metadata.query, { startTime: iso(today - 48 * HOUR), endTime: iso(today), bucketSize: 'day' });
  // Snapped to whole buckets: a mid-day start begins at midnight, a mid-day end ends at the next.
  const snapped = await get(`/v2/billing?startTime=${iso(today - 20 * HOUR)}&endTime=${iso(today - 19 * HOUR)}`);
  assert.deepEqual(snapped.metadata.query, { startTime: iso(today - 24 * HOUR), endTime: iso(today), bucketSize: 'day' });
});

test('the aggregate rounds each bucket once: many sub-cent resources add up, not to 0', async () => {
  const key = await h.newKey({ accountName: 'many-small' });
  const accountId = (await h.services.store.findAccountByName('many-small'))!.id;
  // Twenty 40 GB volumes for six minutes each: 0.4 cents apiece, 8 cents in all.
  const start = today - 20 * HOUR;
  await h.services.store.usage.append(
    Array.from({ length: 20 }, (_, i) => ({
      accountId,
      state: 'ACTIVE' as const,
      subjectId: `volume:small-${i}`,
      family: 'NETWORK_VOLUME' as const,
      ownerId: `vol-small-${i}`,
      meter: 'VOLUME',
      resource: 'STANDARD',
      quantity: 40,
      fromMs: start + i * 6 * 60_000,
      toMs: start + (i + 1) * 6 * 60_000,
    })),
  );
  const window = `startTime=${iso(today - 24 * HOUR)}&endTime=${iso(today)}`;
  const each = await get(`/v2/billing/network-volumes?${window}`, key);
  assert.equal(each.records.length, 20);
  assert.ok(
    each.records.every((r: { totalAmount: number }) => r.totalAmount === 0),
    'each volume alone rounds to 0',
  );
  const all = await get(`/v2/billing?${window}`, key);
  assert.equal(all.records[0].storageStandardAmount, 0.08);
  assert.equal(all.metadata.totals.totalAmount, 0.08);
});

test('windows in the years 0-99 stay there (Date.UTC would move them to the 1900s)', async () => {
  const early = await get('/v2/billing?startTime=0099-12-31T00:00:00Z&endTime=0100-01-02T00:00:00Z&bucketSize=day');
  assert.deepEqual(early.metadata.query, { startTime: '0099-12-31T00:00:00Z', endTime: '0100-01-02T00:00:00Z', bucketSize: 'day' });
  assert.deepEqual(
    early.records.map((r: { startTime: string }) => r.startTime),
    ['0099-12-31T00:00:00Z', '0100-01-01T00:00:00Z'],
  );
});

test("another account's key sees none of this usage", async () => {
  const stranger = await h.newKey({ accountName: 'stranger' });
  const body = await get('/v2/billing?lastN=3', stranger);
  shaped('ListBillingResponse', body);
  assert.equal(body.metadata.totals.totalAmount, 0);
  assert.deepEqual((await get('/v2/billing/serverless?lastN=3', stranger)).records, []);
});

test('contradictory queries answer 400 problems; values their schema refuses, 422', async () => {
  for (const [query, status, words] of [
    ['lastN=3&startTime=2026-01-01T00:00:00Z', 400, /lastN cannot be combined/],
    ['startTime=yesterday', 422, /startTime/],
    ['startTime=2026-01-01', 422, /startTime/],
    ['startTime=2026-02-01T00:00:00Z&endTime=2026-01-01T00:00:00Z', 400, /before endTime/],
    ['bucketSize=hour&startTime=2020-01-01T00:00:00Z&endTime=2026-01-01T00:00:00Z', 400, /more than 10000/],
    ['bucketSize=minute', 422, /bucketSize/],
    ['lastN=0', 422, /lastN/],
  ] as const) {
    const res = await h.call('GET', `/v2/billing/serverless?${query}`);
    assert.equal(res.statusCode, status, `${query}: ${res.body}`);
    assert.match(problem(res).detail + (problem(res).errors ?? []).join(' '), words, query);
  }
});

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
