// Worker-seconds billed end to end: the example worker runs as a real process, takes a job, is
// frozen by FlashBoot when idle and stopped when its endpoint is deleted; the leader's meter
// records its running and frozen time and /v2/billing/serverless prices exactly that.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startLive, type Live } from './support/live.js';

const ECHO_WORKER = { entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/echo-worker.ts'] };
let g: Live;

/** The test catalog with cpu3c at $36 per vCPU-hour: a 2-vCPU worker costs 2 cents a second. */
function catalogFile(): string {
  const catalog = JSON.parse(readFileSync(new URL('./fixtures/billing-catalog.json', import.meta.url), 'utf8'));
  catalog.cpus.find((c: { id: string }) => c.id === 'cpu3c').price.serverlessPerVcpu = 36;
  const file = join(process.env.TMPDIR ?? '/tmp', `gantry-billing-catalog-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

before(async () => {
  g = await startLive(
    {
      workerProvider: 'process',
      scaleIntervalMs: '100',
      workerPingIntervalMs: '200',
      jobLeaseMs: '2000',
      workerStopGraceMs: '2000',
      meteringIntervalMs: '100',
      catalogFile: catalogFile(),
    },
    { workers: { min: 0, max: 1, idleTimeout: 1 }, flashboot: 'FLASHBOOT', disk: 10, ...ECHO_WORKER },
  );
});
after(() => g.close());

test("a real worker's running and frozen seconds are billed to its endpoint", async () => {
  const result = (await g.queue('POST', '/runsync?wait=30000', { input: { echo: 'billed' } })).json;
  assert.deepEqual([result.status, result.output], ['COMPLETED', 'billed']);
  const runtime = g.services.runtime!;
  await eventually(async () => runtime.workersOf(g.endpointId).length === 0 && runtime.endpointIds().has(g.endpointId), 15_000);
  // Frozen now; deleting the endpoint stops it.
  assert.equal((await g.call('DELETE', `/v2/serverless/${g.endpointId}`)).statusCode, 204);
  await eventually(async () => !runtime.endpointIds().has(g.endpointId), 15_000);

  const recorded = async () =>
    (await g.services.store.usage.list({ accountId: g.adminAccountId, family: 'SERVERLESS', fromMs: 0, toMs: Date.now() + 60_000 })).filter(
      (i) => i.meter === 'CPU',
    );
  // The worker's last interval ends when it stopped; later passes add nothing.
  const intervals = await eventually(async () => {
    const first = await recorded();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await recorded();
    return first.length > 0 && JSON.stringify(first) === JSON.stringify(second) && second;
  }, 15_000);
  for (let i = 1; i < intervals.length; i++) assert.equal(intervals[i]!.fromMs, intervals[i - 1]!.toMs, 'contiguous');
  const ms = (state: string) => intervals.filter((i) => i.state === state).reduce((sum, i) => sum + i.toMs - i.fromMs, 0);
  const activeMs = ms('ACTIVE');
  const frozenMs = ms('FROZEN');
  assert.ok(activeMs > 0 && frozenMs > 0, `running ${activeMs} ms and frozen ${frozenMs} ms`);
  assert.deepEqual(
    intervals.map((i) => [i.ownerId, i.resource, i.quantity]),
    intervals.map(() => [g.endpointId, 'cpu3c', 2]),
  );

  const bill = (await g.call('GET', `/v2/billing/serverless?serverlessId=${g.endpointId}&lastN=1&bucketSize=year`)).json();
  // 2 cents per running second, a quarter of that frozen, rounded half up to the cent.
  const expectedCents = Math.floor((4 * activeMs + frozenMs + 1000) / 2000);
  assert.equal(bill.metadata.totals.cpuAmount, expectedCents / 100);
  assert.equal(bill.metadata.uniqueServerlessCount, 1);
  assert.equal(bill.records[0].serverlessId, g.endpointId);
});
