// The helper every background loop runs on: schedule, coalescing, no overlap, errors, stop.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PeriodicTask } from '../src/domain/periodic-task.js';
import { ManualTime } from './support/manual-time.js';

/** A run that stays in flight until the test releases it. */
function gatedRuns() {
  let release: () => void = () => undefined;
  let runs = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  return {
    get runs() {
      return runs;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    release: () => release(),
    run: async () => {
      runs++;
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise<void>((resolve) => (release = resolve));
      concurrent--;
    },
  };
}

const settle = () => sleep(0);

/** Errors no test expected: every test ends with none. */
const unexpectedErrors: unknown[] = [];
const unexpected = (err: unknown) => void unexpectedErrors.push(err);
afterEach(() => assert.deepEqual(unexpectedErrors.splice(0), []));

test('runs every interval once started, and not before', async () => {
  const time = new ManualTime();
  let runs = 0;
  const task = new PeriodicTask({ everyMs: 1000, run: async () => void runs++, onError: unexpected, scheduler: time });
  time.advance(5000);
  assert.equal(runs, 0, 'nothing runs before start()');
  task.start();
  time.advance(999);
  assert.equal(runs, 0);
  time.advance(1);
  await settle();
  assert.equal(runs, 1);
  time.advance(1000);
  await settle();
  assert.equal(runs, 2);
  await task.stop();
});

test('start({ runNow }) runs at once', async () => {
  const time = new ManualTime();
  let runs = 0;
  const task = new PeriodicTask({ everyMs: 1000, run: async () => void runs++, onError: unexpected, scheduler: time });
  task.start({ runNow: true });
  await settle();
  assert.equal(runs, 1);
  await task.stop();
});

test('runSoon requests coalesce into one run', async () => {
  const time = new ManualTime();
  let runs = 0;
  const task = new PeriodicTask({ everyMs: 60_000, run: async () => void runs++, onError: unexpected, scheduler: time });
  task.start();
  task.runSoon();
  task.runSoon();
  task.runSoon();
  assert.equal(time.runSoonCallbacks(), 1, 'one callback for three requests');
  await settle();
  assert.equal(runs, 1);
  await task.stop();
});

test('runs never overlap; requests made during a run make exactly one more run right after it', async () => {
  const gate = gatedRuns();
  const task = new PeriodicTask({ everyMs: 60_000, run: gate.run, onError: unexpected, scheduler: new ManualTime() });
  const first = task.runNow();
  await settle();
  const second = task.runNow();
  const third = task.runNow();
  assert.equal(gate.runs, 1, 'no second run while the first is in flight');
  gate.release();
  await settle();
  assert.equal(gate.runs, 2, 'the requests made meanwhile are one run, right after');
  gate.release();
  await Promise.all([first, second, third]);
  assert.equal(gate.runs, 2);
  assert.equal(gate.maxConcurrent, 1);
});

test('a scheduled run falling due during a run is skipped, not queued', async () => {
  const time = new ManualTime();
  const gate = gatedRuns();
  const task = new PeriodicTask({ everyMs: 100, run: gate.run, onError: unexpected, scheduler: time });
  task.start({ runNow: true });
  await settle();
  time.advance(100);
  time.advance(100);
  gate.release();
  await settle();
  assert.equal(gate.runs, 1);
  await task.stop();
});

test('a failing run is reported and the loop carries on', async () => {
  const time = new ManualTime();
  const errors: unknown[] = [];
  let runs = 0;
  const task = new PeriodicTask({
    everyMs: 100,
    run: async () => {
      runs++;
      if (runs === 1) throw new Error('database away');
    },
    onError: (err) => errors.push(err),
    scheduler: time,
  });
  task.start({ runNow: true });
  await settle();
  time.advance(100);
  await settle();
  assert.equal(runs, 2);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['database away'],
  );
  await task.stop();
});

test('an error callback that throws does not end the loop or escape', async () => {
  let runs = 0;
  const task = new PeriodicTask({
    everyMs: 60_000,
    run: async () => {
      runs++;
      throw new Error('boom');
    },
    onError: () => {
      throw new Error('the logger broke');
    },
    scheduler: new ManualTime(),
  });
  await task.runNow();
  await task.runNow();
  assert.equal(runs, 2);
});

test('stop() waits for the run in flight and no run starts afterwards', async () => {
  const time = new ManualTime();
  const gate = gatedRuns();
  const task = new PeriodicTask({ everyMs: 100, run: gate.run, onError: unexpected, scheduler: time });
  task.start({ runNow: true });
  await settle();
  void task.runNow(); // asked for during the run: would follow it, but stop() comes first
  let stopped = false;
  const stopping = task.stop().then(() => (stopped = true));
  await settle();
  assert.equal(stopped, false, 'stop() waits for the run in flight');
  gate.release();
  await stopping;
  task.runSoon();
  assert.equal(time.runSoonCallbacks(), 0);
  time.advance(1000);
  await task.runNow();
  await settle();
  assert.equal(gate.runs, 1, 'nothing ran after stop()');
});

test('it can start again after stop()', async () => {
  const time = new ManualTime();
  let runs = 0;
  const task = new PeriodicTask({ everyMs: 100, run: async () => void runs++, onError: unexpected, scheduler: time });
  task.start();
  await task.stop();
  task.start();
  time.advance(100);
  await settle();
  assert.equal(runs, 1);
  await task.stop();
});

test('with real timers: runs on its interval until stopped', async () => {
  let runs = 0;
  const task = new PeriodicTask({ everyMs: 10, run: async () => void runs++, onError: unexpected });
  task.start();
  await sleep(100);
  await task.stop();
  const seen = runs;
  assert.ok(seen >= 2, `ran ${seen} times in 100 ms at a 10 ms interval`);
  await sleep(50);
  assert.equal(runs, seen, 'no run after stop()');
});
