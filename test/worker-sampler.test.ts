// The leader's sampler of workers by state, on a real store with time moved by hand: endpoints
// with workers get a sample every interval, the drop to none is recorded once and then nothing,
// and samples past the retention are pruned.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore, type TestStore } from './support/test-store.js';
import { ManualTime } from './support/manual-time.js';
import { anAccount, anEndpoint } from './store-conformance/records.js';
import { WorkerSampler } from '../src/services/worker-sampler.js';
import { WORKER_SAMPLE_RETENTION_MS, type WorkerStateCounts } from '../src/store/worker-sample-store.js';
import { silentLogger } from '../src/domain/logger.js';

let opened: TestStore;
before(async () => {
  opened = await openTestStore(mkdtempSync(join(tmpdir(), 'gantry-sampler-')));
});
after(async () => {
  await opened.store.close();
  await opened.drop();
});

const NONE: WorkerStateCounts = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0 };

test('busy endpoints are sampled every pass, an idle one once when its workers go, and old samples are pruned', async () => {
  const store = opened.store;
  const { account } = await store.ensureAccount(anAccount());
  const busy = anEndpoint(account.id);
  const quiet = anEndpoint(account.id);
  await store.insertEndpoint(busy);
  await store.insertEndpoint(quiet);
  const counts = new Map<string, WorkerStateCounts>([[busy.id, { ...NONE, running: 2, idle: 1 }]]);
  const time = new ManualTime();
  const start = time.now();
  const sampler = new WorkerSampler({
    store,
    counts: (id) => counts.get(id) ?? NONE,
    everyMs: 15_000,
    log: silentLogger,
    now: time.now,
    scheduler: time,
  });
  // A sample from before the retention, left by an earlier leader.
  await store.workerSamples.append([{ endpointId: quiet.id, at: start - WORKER_SAMPLE_RETENTION_MS - 1, ...NONE, idle: 1 }]);

  await sampler.runNow();
  time.advance(15_000);
  await sampler.runNow();
  counts.set(busy.id, NONE);
  time.advance(15_000);
  await sampler.runNow();
  time.advance(15_000);
  await sampler.runNow();

  const busySamples = await store.workerSamples.list(busy.id, start - WORKER_SAMPLE_RETENTION_MS * 2, time.now());
  assert.deepEqual(
    busySamples.map((s) => [s.at - start, s.running, s.idle]),
    [
      [0, 2, 1],
      [15_000, 2, 1],
      [30_000, 0, 0],
    ],
    'the drop to none is recorded once, then nothing',
  );
  assert.deepEqual(
    await store.workerSamples.list(quiet.id, start - WORKER_SAMPLE_RETENTION_MS * 2, time.now()),
    [],
    'pruned, and no zeros written',
  );
  await sampler.stop();
});
