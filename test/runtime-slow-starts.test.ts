// Starts run in the background: a worker whose image takes long to pull is STARTING (shown as
// INITIALIZING, with what the provider is doing) while the loop keeps scaling other endpoints.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerDirectory } from '../src/services/worker-directory.js';
import { startRuntimeRig, until, type RuntimeRig } from './support/runtime-rig.js';

const FLAGS = { scaleIntervalMs: '60000', crashBackoffMs: '1000', workerPingIntervalMs: '10000' };
const SLOW_IMAGE = 'acme/huge-model:1';

async function rig(t: TestContext): Promise<RuntimeRig> {
  const r = await startRuntimeRig(FLAGS);
  t.after(() => r.close());
  r.runtime.start();
  await r.runtime.tick();
  return r;
}

/** One pass, without waiting for the starts it begins; a pass that waited on a pull would never end here. */
async function passNow(r: RuntimeRig): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the pass waited for a start')), 5000);
  });
  try {
    await Promise.race([r.runtime.tick({ waitForStarts: false }), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const directory = (r: RuntimeRig) => new WorkerDirectory(r.registry, r.runtime, 30_000);

test('a slow start of one endpoint does not hold up scaling another', async (t) => {
  const r = await rig(t);
  const held = r.provider.holdStarts(SLOW_IMAGE);
  t.after(() => held.finish());
  const slow = await r.createEndpoint({ image: SLOW_IMAGE });
  const quick = await r.createEndpoint({ image: 'acme/small:1' });
  await r.queueJob(slow.id);
  await r.queueJob(quick.id);

  await passNow(r);
  await until(() => r.provider.started.some((s) => s.endpointId === quick.id), 'the other endpoint’s worker to start');
  assert.equal(held.count, 1, 'the slow endpoint’s worker is still being started');
  assert.equal(
    r.provider.started.some((s) => s.endpointId === slow.id),
    false,
  );

  await r.queueJob(slow.id);
  await passNow(r);
  assert.equal(r.runtime.workersOf(slow.id).length, 1, 'a worker still starting counts: no second one for the same demand');
  assert.equal(held.count, 1);

  held.finish();
  await r.runtime.startsSettled();
  assert.equal(r.provider.started.filter((s) => s.endpointId === slow.id).length, 1);
});

test('a worker being started is INITIALIZING and shows what its provider is doing', async (t) => {
  const r = await rig(t);
  const held = r.provider.holdStarts(SLOW_IMAGE);
  t.after(() => held.finish());
  const e = await r.createEndpoint({ image: SLOW_IMAGE });
  await r.queueJob(e.id);
  await passNow(r);
  await until(() => held.count === 1, 'the start to begin');

  held.progress(`pulling image ${SLOW_IMAGE}: 40%`);
  const [row] = directory(r).list(e.id, e.version);
  assert.equal(row?.status, 'INITIALIZING');
  assert.equal(row?.statusMessage, `pulling image ${SLOW_IMAGE}: 40%`);
  assert.equal(row?.uptimeSeconds, null, 'nothing runs yet');

  r.time.advance(Number(r.config.workerInitTimeoutMs) + 1);
  assert.equal(directory(r).list(e.id, e.version)[0]?.status, 'INITIALIZING', 'a long pull is not a sick worker');

  held.finish();
  await r.runtime.startsSettled();
  assert.equal(directory(r).list(e.id, e.version)[0]?.statusMessage, undefined, 'the message goes once it runs');
});

test('a worker asked to stop while it starts is stopped once started, and its place freed', async (t) => {
  const r = await rig(t);
  const held = r.provider.holdStarts(SLOW_IMAGE);
  t.after(() => held.finish());
  const e = await r.createEndpoint({ image: SLOW_IMAGE });
  await r.queueJob(e.id);
  await passNow(r);
  await until(() => held.count === 1, 'the start to begin');
  const [worker] = r.runtime.workersOf(e.id);

  await r.store.deleteEndpoint(e.accountId, e.id);
  await passNow(r);
  assert.deepEqual(r.provider.stopped, [], 'nothing to stop before it runs');
  assert.equal(r.capacity.freeVcpus('local'), 6, 'it keeps its place while its start is under way');

  held.finish();
  await r.runtime.startsSettled();
  assert.deepEqual(r.provider.stopped, [worker!.workerId], 'stopped once it was up');
  assert.equal(r.runtime.isManaged(worker!.workerId), false);
  assert.equal(r.capacity.freeVcpus('local'), 8);
});

test('a worker of a deleted endpoint that is slow to exit is asked to stop once, not on every pass', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await passNow(r);
  await r.runtime.startsSettled();
  const [worker] = r.runtime.workersOf(e.id);
  const finish = r.provider.holdStops();

  await r.store.deleteEndpoint(e.accountId, e.id);
  for (let pass = 0; pass < 3; pass++) await passNow(r);
  assert.deepEqual(r.provider.stopCalls, [worker!.workerId], 'one stop while it exits');

  finish();
  await until(() => !r.runtime.isManaged(worker!.workerId), 'the worker to be gone');
  assert.deepEqual(r.provider.stopCalls, [worker!.workerId]);
});

test('a start that fails after a while is reported with the provider’s reason, and retried after the back-off', async (t) => {
  const r = await rig(t);
  const held = r.provider.holdStarts(SLOW_IMAGE);
  const e = await r.createEndpoint({ image: SLOW_IMAGE, workers: { min: 1, max: 1, idleTimeout: 5 } });
  await passNow(r);
  await until(() => held.count === 1, 'the start to begin');

  held.fail(`cannot pull image '${SLOW_IMAGE}' from docker.io: manifest unknown`);
  await r.runtime.startsSettled();
  assert.equal(
    r.runtime.crashReport(e.id)?.lastReason,
    `the worker could not start: cannot pull image '${SLOW_IMAGE}' from docker.io: manifest unknown`,
  );
  assert.deepEqual(r.runtime.workersOf(e.id), []);
  assert.equal(r.capacity.freeVcpus('local'), 8);

  r.time.advance(1000);
  await passNow(r);
  assert.equal(held.count, 1, 'a new start after the back-off');
  held.finish();
});
