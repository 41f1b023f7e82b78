// The worker runtime's control loop on a fake provider and manual time: scaling from zero, idle
// stop, crash back-off, rolling updates, FlashBoot and HTTP workers, each pass run by the test.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { FAKE_WORKER_HOST } from './support/fake-provider.js';
import { startRuntimeRig, until, type RuntimeRig } from './support/runtime-rig.js';

// Scheduled passes never fire on their own here (the interval is longer than any test's time).
const FLAGS = { scaleIntervalMs: '60000', crashBackoffMs: '1000', workerPingIntervalMs: '10000' };

async function rig(t: TestContext): Promise<RuntimeRig> {
  const r = await startRuntimeRig(FLAGS);
  t.after(() => r.close());
  r.runtime.start();
  await r.runtime.tick();
  return r;
}

/** The passes a test asked for with runSoon, then one more it waits for. */
async function wakeAndPass(r: RuntimeRig): Promise<number> {
  const woken = r.time.runSoonCallbacks();
  await r.runtime.tick();
  return woken;
}

async function finishJob(r: RuntimeRig, jobId: string, workerId: string, endpointId: string): Promise<void> {
  await r.store.jobs.complete(jobId, ['IN_PROGRESS'], { status: 'COMPLETED', output: '"done"', error: null, completedAt: r.time.now() });
  r.ping(workerId, endpointId, []);
}

const workerIds = (r: RuntimeRig, endpointId: string) => r.runtime.workersOf(endpointId).map((w) => w.workerId);

test('a queued job scales an endpoint up from zero at once, with a worker-protocol credential', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint();
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 0, 'no job, no worker');

  await r.queueJob(e.id);
  r.signals.queued(e.id);
  assert.equal(await wakeAndPass(r), 1, 'a job with no worker at all wakes the loop without waiting for its tick');
  assert.equal(r.provider.started.length, 1);
  const spec = r.provider.started[0]!;
  assert.equal(spec.endpointId, e.id);
  assert.equal(spec.version, 1);
  assert.match(spec.env.RUNPOD_AI_API_KEY ?? '', /^cred-/);
  assert.match(spec.env.RUNPOD_WEBHOOK_GET_JOB ?? '', new RegExp(`/v2/${e.id}/job-take/`));
  assert.equal(spec.env.RUNPOD_POD_ID, spec.workerId);
  assert.equal(spec.http, undefined, 'a queue worker serves no HTTP');
  assert.equal(spec.memoryGb, 4, "the memory of its flavor's size, for the provider to limit");
  const [worker] = r.runtime.workersOf(e.id);
  assert.equal(r.runtime.stateOf(worker!), 'INITIALIZING');

  r.signals.queued(e.id);
  assert.equal(r.time.pendingSoon, 0, 'with a worker up, the next tick decides');
});

test('an idle worker stops once it has been idle for idleTimeout, not before', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 0, max: 3, idleTimeout: 5 } });
  await r.queueJob(e.id);
  await r.runtime.tick();
  const [workerId] = workerIds(r, e.id);
  const [jobId] = await r.take(workerId!, e.id);
  await finishJob(r, jobId!, workerId!, e.id);
  assert.equal(r.runtime.stateOf(r.runtime.workersOf(e.id)[0]!), 'IDLE');
  assert.equal(r.capacity.freeVcpus('local'), 6);

  r.time.advance(4_999);
  r.ping(workerId!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'idle for less than idleTimeout');

  r.time.advance(1);
  r.ping(workerId!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [workerId]);
  assert.deepEqual(workerIds(r, e.id), []);
  // Freed in the background, once the store has taken back what the worker held.
  await until(() => r.capacity.freeVcpus('local') === 8, 'its vCPUs are free again');
});

test('lowering max to 0 stops a worker that has started but not yet reported', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 3, idleTimeout: 5 } });
  await r.runtime.tick();
  const [workerId] = workerIds(r, e.id);
  assert.equal(r.runtime.stateOf(r.runtime.workersOf(e.id)[0]!), 'INITIALIZING');

  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'within max, a starting worker is left to start');

  await r.changeEndpoint(e, { workers: { min: 0, max: 0, idleTimeout: 5 } }, { newVersion: false });
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [workerId], 'above max, it goes without waiting for its first ping');
});

test('crashing workers are replaced after a back-off that doubles with each crash in a row; their jobs go back to the queue', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  const [first] = workerIds(r, e.id);
  await r.queueJob(e.id);
  const [jobId] = await r.take(first!, e.id);

  const crashedAt = r.time.now();
  r.provider.crash(first!, 3, ['CUDA error: out of memory']);
  await until(async () => (await r.store.jobs.get(jobId!))?.status === 'IN_QUEUE', 'the crashed worker’s job to be queued again');
  // Announced once the runtime hears the store's answer, which may come after this read saw the row.
  await until(() => r.signals.announced.includes(e.id), 'workers waiting for jobs to be told');
  const report = r.runtime.crashReport(e.id)!;
  assert.equal(report.consecutive, 1);
  assert.equal(report.lastReason, 'the worker exited with code 3');
  assert.deepEqual(report.lastLogLines, ['CUDA error: out of memory']);
  assert.equal(report.nextStartAt, new Date(crashedAt + 1000).toISOString());

  await wakeAndPass(r);
  r.time.advance(999);
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 1, 'no replacement during the first back-off (1 s)');
  r.time.advance(1);
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 2, 'replaced once 1 s have passed');

  const [second] = workerIds(r, e.id);
  r.provider.crash(second!, 1);
  await until(() => !r.runtime.isManaged(second!), 'the second crash to be seen');
  await wakeAndPass(r);
  r.time.advance(1999);
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 2, 'no replacement during the second back-off (2 s)');
  r.time.advance(1);
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 3, 'replaced once 2 s have passed');
  assert.equal(r.runtime.crashReport(e.id)?.consecutive, 2);

  const [third] = workerIds(r, e.id);
  r.ping(third!, e.id);
  await r.runtime.tick();
  assert.equal(r.runtime.crashReport(e.id), undefined, 'a worker that got as far as calling in ends the streak');
});

test('a worker the provider cannot start is reported and retried after the back-off', async (t) => {
  const r = await rig(t);
  r.provider.refuseNextStart('image acme/worker:1 not found');
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  assert.deepEqual(workerIds(r, e.id), []);
  assert.equal(r.runtime.crashReport(e.id)?.lastReason, 'the worker could not start: image acme/worker:1 not found');
  assert.equal(r.capacity.freeVcpus('local'), 8, 'the place it was given is free again');
  r.time.advance(1000);
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 1);
});

test('max lowered to 0 stops a busy worker from taking more jobs; it stops once idle, and raising max lets it work again', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 0, max: 2, idleTimeout: 30 } });
  await r.queueJob(e.id);
  await r.queueJob(e.id);
  await r.runtime.tick();
  const [first, second] = workerIds(r, e.id);
  const [firstJob] = await r.take(first!, e.id);
  const [secondJob] = await r.take(second!, e.id);
  r.ping(first!, e.id, [firstJob!]);
  r.ping(second!, e.id, [secondJob!]);

  const paused = await r.changeEndpoint(e, { workers: { min: 0, max: 0, idleTimeout: 30 } }, { newVersion: false });
  await r.queueJob(e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'a worker holding a job is not stopped');
  assert.ok(r.registry.isParked(first!) && r.registry.isParked(second!), 'but neither takes another job');

  await finishJob(r, firstJob!, first!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [first], 'once idle, it stops');

  await r.changeEndpoint(paused, { workers: { min: 0, max: 2, idleTimeout: 30 } }, { newVersion: false });
  await r.runtime.tick();
  assert.ok(!r.registry.isParked(second!), 'max raised again: the busy one takes jobs again');
});

test('a worker that never calls the server is replaced at its init timeout, as a failed start: the endpoint backs off', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  const [silent] = workerIds(r, e.id);
  r.time.advance(r.config.workerInitTimeoutMs + 1);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [silent], 'replaced at once: it holds no job to wait for');
  assert.match(r.runtime.crashReport(e.id)?.lastReason ?? '', /never called the server/);
  assert.equal(workerIds(r, e.id).length, 0, 'no new start before the back-off: max is never exceeded');
  r.time.advance(1000);
  await r.runtime.tick();
  assert.equal(workerIds(r, e.id).length, 1, 'one after it');
});

test('a new release starts beside the old worker, which serves until the new one is ready and then drains', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  const [old] = workerIds(r, e.id);
  await r.queueJob(e.id);
  const [jobId] = await r.take(old!, e.id);
  r.ping(old!, e.id, [jobId!]);

  await r.changeEndpoint(e, { env: { MODEL: 'v2' } });
  await r.runtime.tick();
  const replacement = r.provider.started.at(-1)!;
  assert.equal(replacement.version, 2);
  assert.equal(replacement.env.MODEL, 'v2', 'the replacement runs the new configuration');
  assert.deepEqual(r.provider.stopped, [], 'the old worker serves while the new one comes up');
  assert.ok(!r.registry.isParked(old!), 'and is still given work');

  r.ping(replacement.workerId, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'a busy old worker finishes its job first');
  assert.ok(r.registry.isParked(old!), 'but takes no new one once a new worker is ready');

  await finishJob(r, jobId!, old!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [old]);
  assert.deepEqual(workerIds(r, e.id), [replacement.workerId]);
  assert.equal((await r.store.jobs.get(jobId!))?.status, 'COMPLETED');
});

test('releases in quick succession never run more than twice max workers in all', async (t) => {
  const r = await rig(t);
  let e = await r.createEndpoint({ workers: { min: 2, max: 2, idleTimeout: 5 } });
  await r.runtime.tick();
  for (const workerId of workerIds(r, e.id)) {
    await r.queueJob(e.id);
    const [jobId] = await r.take(workerId, e.id);
    r.ping(workerId, e.id, [jobId!]);
  }
  for (const model of ['v2', 'v3', 'v4']) {
    e = await r.changeEndpoint(e, { env: { MODEL: model } });
    await r.runtime.tick();
    const running = r.runtime.workersOf(e.id).filter((w) => w.phase !== 'STOPPING');
    assert.ok(running.length <= 4, `${running.length} workers after release ${model}, max 2`);
  }
});

test('a new release that never gets ready leaves idle old workers serving until their idle timeout', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 3, idleTimeout: 30 } });
  for (let i = 0; i < 3; i++) await r.queueJob(e.id);
  await r.runtime.tick();
  const old = workerIds(r, e.id);
  assert.equal(old.length, 3);
  for (const workerId of old) {
    const [jobId] = await r.take(workerId, e.id);
    await finishJob(r, jobId!, workerId, e.id);
  }
  await r.changeEndpoint(e, { image: 'acme/broken:2' });
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'idle, but nothing of the new release is up to take their place');
  r.time.advance(30_000);
  for (const workerId of old) r.ping(workerId, e.id);
  await r.runtime.tick();
  assert.equal(r.provider.stopped.length, 2, 'after their idle timeout they go as scale-down has them go, down to min');
});

test('a new release that never gets ready leaves the old worker serving; its back-off is its own', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  const [old] = workerIds(r, e.id);
  r.ping(old!, e.id);

  const broken = await r.changeEndpoint(e, { image: 'acme/broken:2' });
  await r.runtime.tick();
  const first = r.provider.started.at(-1)!;
  assert.equal(first.version, 2);
  r.provider.crash(first.workerId, 1, ['no such file']);
  r.time.advance(1000);
  r.ping(old!, e.id);
  await r.runtime.tick();
  r.provider.crash(r.provider.started.at(-1)!.workerId, 1, ['no such file']);
  r.time.advance(5000);
  r.ping(old!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.stopped, [], 'the old worker is never stopped for a release that is not ready');
  assert.ok(!r.registry.isParked(old!), 'and keeps taking jobs');
  assert.equal(r.runtime.crashReport(e.id)?.consecutive, 2);

  await r.changeEndpoint(broken, { image: 'acme/fixed:3' });
  const before = r.provider.started.length;
  await r.runtime.tick();
  assert.equal(r.runtime.crashReport(e.id), undefined, "the broken release's back-off does not hold up the next");
  assert.equal(r.provider.started.length, before + 1);
  assert.equal(r.provider.started.at(-1)!.version, 3);
});

test('FlashBoot: an idle worker is frozen instead of stopped, and thawed when a job arrives', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({ flashboot: 'FLASHBOOT', workers: { min: 0, max: 3, idleTimeout: 5 } });
  await r.queueJob(e.id);
  await r.runtime.tick();
  const [workerId] = workerIds(r, e.id);
  const [jobId] = await r.take(workerId!, e.id);
  await finishJob(r, jobId!, workerId!, e.id);

  r.time.advance(5_000);
  r.ping(workerId!, e.id);
  await r.runtime.tick();
  assert.deepEqual(r.provider.frozen, [workerId]);
  assert.deepEqual(r.provider.stopped, []);
  assert.deepEqual(workerIds(r, e.id), [], 'a frozen worker is not listed');
  assert.ok(r.registry.isParked(workerId!), 'its open long-poll is handed no job');

  await r.queueJob(e.id);
  r.signals.queued(e.id);
  await wakeAndPass(r);
  assert.deepEqual(r.provider.thawed, [workerId]);
  assert.equal(r.provider.started.length, 1, 'no cold start');
  assert.deepEqual(workerIds(r, e.id), [workerId]);
  assert.equal(r.registry.isParked(workerId!), false);
  assert.ok(r.signals.announced.includes(e.id), 'the thawed worker hears of the waiting job');
});

test("FlashBoot: a frozen worker gives its capacity up when another endpoint's worker cannot be placed", async (t) => {
  const r = await rig(t);
  // Two frozen workers of 4 vCPUs fill the rig's 8.
  const sleeper = await r.createEndpoint({
    flashboot: 'FLASHBOOT',
    cpu: [{ id: 'cpu3c', vcpuCount: 4, memory: 8 }],
    workers: { min: 0, max: 2, idleTimeout: 5 },
  });
  await r.queueJob(sleeper.id);
  await r.queueJob(sleeper.id);
  await r.runtime.tick();
  const frozen = workerIds(r, sleeper.id);
  for (const workerId of frozen) await finishJob(r, (await r.take(workerId, sleeper.id))[0]!, workerId, sleeper.id);
  r.time.advance(5_000);
  for (const workerId of frozen) r.ping(workerId, sleeper.id);
  await r.runtime.tick();
  assert.deepEqual([...r.provider.frozen].sort(), [...frozen].sort());
  assert.equal(r.capacity.freeVcpus('local'), 0, 'frozen, they still hold their vCPUs');

  const waker = await r.createEndpoint({ workers: { min: 1, max: 1, idleTimeout: 5 } });
  await r.runtime.tick();
  assert.equal(r.provider.stopped.length, 1, 'one frozen worker is stopped for it');
  await r.runtime.tick();
  assert.equal(workerIds(r, waker.id).length, 1);
  assert.equal(r.runtime.stateOf(r.runtime.workersOf(waker.id)[0]!) === 'THROTTLED', false, 'placed on the freed vCPUs');
});

test('an HTTP endpoint scales on held requests, which its workers serve at the address the provider chose', async (t) => {
  const r = await rig(t);
  const e = await r.createEndpoint({
    type: 'LOAD_BALANCER',
    scaling: { type: 'REQUEST_COUNT', requestCount: 1 },
    workers: { min: 0, max: 3, idleTimeout: 5 },
    env: { PORT: '8000' },
  });
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 0);

  const abort = new AbortController();
  t.after(() => abort.abort());
  const first = r.balancer.backends.acquire(e.id, 1, 10_000, abort.signal);
  const second = r.balancer.backends.acquire(e.id, 1, 10_000, abort.signal);
  assert.equal(await wakeAndPass(r), 1, 'held requests wake the loop');
  assert.equal(r.provider.started.length, 2, 'one worker per held request (requestCount 1)');
  for (const spec of r.provider.started) {
    assert.deepEqual(spec.http, { port: 8000, healthPort: 80 }, 'PORT_HEALTH defaults to 80, not to PORT');
    assert.equal(spec.env.PORT, '8000');
    assert.equal(spec.env.RUNPOD_AI_API_KEY, undefined, 'an HTTP worker needs no worker-protocol credential');
    const backend = r.balancer.get(spec.workerId)!;
    assert.equal(backend.address.host, FAKE_WORKER_HOST, 'reached where the provider placed it');
    assert.equal(r.runtime.stateOf(r.runtime.workersOf(e.id).find((w) => w.workerId === spec.workerId)!), 'INITIALIZING');
  }

  const ids = r.provider.started.map((s) => s.workerId);
  for (const id of ids) r.setHealth(id, 'READY');
  const served = (await Promise.all([first, second])).map((b) => (b === 'deleted' ? undefined : b));
  assert.deepEqual(
    served.map((b) => b?.address.host),
    [FAKE_WORKER_HOST, FAKE_WORKER_HOST],
  );
  assert.deepEqual(new Set(served.map((b) => b?.workerId)), new Set(ids), 'one request on each worker');
  for (const backend of served) r.balancer.backends.release(backend!);

  r.time.advance(5_000);
  await r.runtime.tick();
  assert.deepEqual(new Set(r.provider.stopped), new Set(ids), 'idle HTTP workers stop after idleTimeout');
  assert.deepEqual(
    ids.map((id) => r.balancer.get(id)),
    [undefined, undefined],
  );
});
