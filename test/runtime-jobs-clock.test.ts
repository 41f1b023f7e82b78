// The autoscaler judges how long jobs have waited by the jobs' own clock (the database's, on
// PostgreSQL), not by the leader's machine: a leader whose clock is an hour ahead does not take
// every queued job for one that has waited an hour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntimeRig } from './support/runtime-rig.js';

test('a leader whose clock is an hour ahead of the jobs scales on the queue delay the jobs have waited', async (t) => {
  const r = await startRuntimeRig({ scaleIntervalMs: '60000', workerPingIntervalMs: '10000' }, { jobsClockOffsetMs: -3_600_000 });
  t.after(() => r.close());
  r.runtime.start();
  const e = await r.createEndpoint({ workers: { min: 0, max: 3, idleTimeout: 60 }, scaling: { type: 'QUEUE_DELAY', queueDelay: 4 } });
  await r.queueJob(e.id);
  await r.runtime.tick();
  const [first] = r.runtime.workersOf(e.id).map((w) => w.workerId);
  const running = await r.take(first!, e.id);
  r.ping(first!, e.id, running);

  await r.queueJob(e.id);
  r.time.advance(3_000);
  r.ping(first!, e.id, running);
  await r.runtime.tick();
  assert.equal(r.runtime.workersOf(e.id).length, 1, 'a job queued 3 s ago is within the 4 s queue delay');

  r.time.advance(2_000);
  r.ping(first!, e.id, running);
  await r.runtime.tick();
  assert.equal(r.runtime.workersOf(e.id).length, 2, 'waiting 5 s, over the queue delay, it starts a worker');
});
