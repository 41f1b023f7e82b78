// Reading an endpoint's jobs back: newest first, filtered and paged without repeats, other
// endpoints' jobs never mixed in; stream chunks read without moving the clients' position;
// an endpoint's jobs counted step by step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, aStreamWriter, NOW } from './records.js';
import { modelSeries, OUTCOMES, type ModelJob } from './series-model.js';
import { Prng } from '../chaos/support/prng.js';

const suite = useTestStore();

test(`[${TEST_STORE}] jobs list newest first, by status, in pages that follow one another`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const job = aJob(queue);
    await jobs.insert(job);
    ids.push(job.id);
  }
  await jobs.insert(aJob(aQueue()));
  await jobs.complete(ids[1]!, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: NOW + 100 });

  const all = await jobHistory.list(queue, { statuses: [], limit: 10 });
  assert.deepEqual(
    all.jobs.map((j) => j.id),
    [...ids].reverse(),
  );
  assert.equal(all.next, null);
  assert.deepEqual(await jobs.getState(ids[1]!), all.jobs[3], 'a listed job is its state, without the input no list shows');

  const first = await jobHistory.list(queue, { statuses: [], limit: 2 });
  const second = await jobHistory.list(queue, { statuses: [], limit: 2, before: first.next! });
  const third = await jobHistory.list(queue, { statuses: [], limit: 2, before: second.next! });
  assert.deepEqual(
    [...first.jobs, ...second.jobs, ...third.jobs].map((j) => j.id),
    [...ids].reverse(),
  );
  assert.equal(third.next, null);

  const cancelled = await jobHistory.list(queue, { statuses: ['CANCELLED', 'FAILED'], limit: 10 });
  assert.deepEqual(
    cancelled.jobs.map((j) => [j.id, j.status]),
    [[ids[1], 'CANCELLED']],
  );
});

test(`[${TEST_STORE}] every stream chunk is read back in order, and clients still get theirs`, async () => {
  const { jobs, jobHistory } = suite.store;
  const job = aJob(aQueue());
  await jobs.insert(job);
  await jobs.appendStream(job.id, ['{"i":0}', '{"i":1}'], aStreamWriter(job.endpointId));
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['{"i":0}', '{"i":1}']);
  await jobs.appendStream(job.id, ['{"i":2}'], aStreamWriter(job.endpointId));
  assert.deepEqual(await jobHistory.chunks(job.id, 10), ['{"i":0}', '{"i":1}', '{"i":2}']);
  assert.deepEqual(await jobHistory.chunks(job.id, 2), ['{"i":0}', '{"i":1}']);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['{"i":2}'], "reading the history does not move the client's position");
});

test(`[${TEST_STORE}] a series counts each job in the steps its times fall in, and where it is at each step's end`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const from = NOW - 180_000;
  const at = (seconds: number) => from + seconds * 1000;
  const started = async (submitted: number, start: number) => {
    const job = aJob(queue, { submittedAt: at(submitted) });
    await jobs.insert(job);
    const [taken] = await jobs.take(queue, 'worker-1', 1, at(start), NOW + 600_000);
    assert.equal(taken?.id, job.id);
    return job.id;
  };
  const finish = (
    id: string,
    status: 'COMPLETED' | 'FAILED' | 'CANCELLED',
    seconds: number,
    was: 'IN_QUEUE' | 'IN_PROGRESS' = 'IN_PROGRESS',
  ) => jobs.complete(id, [was], { status, output: null, error: null, completedAt: at(seconds) });

  const longAgo = aJob(queue, { submittedAt: NOW - 10_000_000 }); // cancelled long before: in no step
  await jobs.insert(longAgo);
  await finish(longAgo.id, 'CANCELLED', -9_000, 'IN_QUEUE');
  await finish(await started(-30, 10), 'COMPLETED', 70); // submitted before the first step
  await finish(await started(90, 100), 'FAILED', 150);
  await started(20, 130); // still running
  for (let k = 1; k <= 15; k++) await finish(await started(125, 125 + k), 'COMPLETED', 175);
  const handedBack = await started(-100, 30);
  await jobs.handBack('worker-1', [handedBack]); // queued again, as if never started
  const cancelled = aJob(queue, { submittedAt: at(60) }); // on a step's start
  await jobs.insert(cancelled);
  await finish(cancelled.id, 'CANCELLED', 120, 'IN_QUEUE'); // on a step's end: gone at that end
  await jobs.insert(aJob(queue, { submittedAt: at(170) }));

  const none = { completed: 0, failed: 0, cancelled: 0, timedOut: 0, executionP50: null, executionP90: null, executionP99: null };
  assert.deepEqual(await jobHistory.series(queue, { from, to: NOW, stepMs: 60_000 }), [
    { t: at(60), submitted: 1, queued: 2, inProgress: 1, delayP50: 40_000, delayP90: 40_000, delayP99: 40_000, ...none },
    {
      ...{ t: at(120), submitted: 2, queued: 2, inProgress: 1, delayP50: 10_000, delayP90: 10_000, delayP99: 10_000 },
      ...{ ...none, completed: 1, executionP50: 60_000, executionP90: 60_000, executionP99: 60_000 },
    },
    {
      // 16 values: nearest ranks 8, 15 (14.4 rounded up) and 16.
      ...{ t: at(180), submitted: 16, queued: 2, inProgress: 1, delayP50: 8_000, delayP90: 15_000, delayP99: 110_000 },
      ...{ completed: 15, failed: 1, cancelled: 1, timedOut: 0, executionP50: 42_000, executionP90: 49_000, executionP99: 50_000 },
    },
  ]);
});

test(`[${TEST_STORE}] a series of random jobs is what counting each job at each step gives`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const random = new Prng(7);
  const span = { from: NOW - 300_000, to: NOW - 10_000, stepMs: 30_000 }; // the last step cut short
  const time = () => span.from - 60_000 + random.int(0, 79) * 5_000; // on 5 s marks: steps' edges often
  // Half the jobs wait and run whole marks, so some values tie; the others a few ms more, so ranks tell apart.
  const duration = (i: number) => random.int(0, 11) * 5_000 + (i % 2) * i;
  const specs = Array.from({ length: 150 }, (_, i) => {
    const submittedAt = time();
    const startedAt = random.next() < 0.7 ? submittedAt + duration(i) : null;
    const ends = random.next() < 0.7;
    const status = startedAt === null ? (ends ? 'CANCELLED' : 'IN_QUEUE') : ends ? random.pick(OUTCOMES) : 'IN_PROGRESS';
    const completedAt = ends ? (startedAt ?? submittedAt) + duration(i) : null;
    return { status, submittedAt, startedAt, completedAt } as ModelJob;
  });
  // Taken one at a time, in insertion order, before the jobs that are never taken are inserted.
  for (const spec of [...specs].sort((a, b) => Number(a.startedAt === null) - Number(b.startedAt === null))) {
    const job = aJob(queue, { submittedAt: spec.submittedAt });
    await jobs.insert(job);
    if (spec.startedAt !== null) await jobs.take(queue, 'worker-1', 1, spec.startedAt, NOW + 600_000);
    if (spec.completedAt === null) continue;
    const outcome = { status: spec.status as (typeof OUTCOMES)[number], output: null, error: null, completedAt: spec.completedAt };
    await jobs.complete(job.id, [spec.startedAt === null ? 'IN_QUEUE' : 'IN_PROGRESS'], outcome);
  }
  assert.deepEqual(await jobHistory.series(queue, span), modelSeries(specs, span));
});

test(`[${TEST_STORE}] a list of some statuses holds every job of them, newest first across priorities and statuses, page by page`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  // Submitted in this order: normal, low, normal, low, normal, low; the first two are then taken
  // and the first of them completed, so each status and both priorities interleave by age.
  const submitted: string[] = [];
  for (let i = 0; i < 6; i++) {
    const job = aJob(queue, { lowPriority: i % 2 === 1 });
    await jobs.insert(job);
    submitted.push(job.id);
  }
  const taken = await jobs.take(queue, 'worker-1', 1, NOW, NOW + 60_000);
  assert.deepEqual(
    taken.map((j) => j.id),
    [submitted[0]],
  );
  await jobs.complete(submitted[0]!, ['IN_PROGRESS'], { status: 'COMPLETED', output: '{}', error: null, completedAt: NOW + 10 });
  await jobs.take(queue, 'worker-1', 1, NOW, NOW + 60_000); // the next normal one: submitted[2]
  const newestFirst = [...submitted].reverse();

  const pages: string[][] = [];
  let before: number | undefined;
  do {
    const page = await jobHistory.list(queue, { statuses: ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'], limit: 2, before });
    pages.push(page.jobs.map((j) => j.id));
    before = page.next ?? undefined;
  } while (before !== undefined);
  assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4, 6)]);

  const queued = await jobHistory.list(queue, { statuses: ['IN_QUEUE'], limit: 10 });
  assert.deepEqual(
    queued.jobs.map((j) => j.id),
    [submitted[5], submitted[4], submitted[3], submitted[1]],
  );
  const running = await jobHistory.list(queue, { statuses: ['IN_PROGRESS'], limit: 10 });
  assert.deepEqual(
    running.jobs.map((j) => [j.id, j.status]),
    [[submitted[2], 'IN_PROGRESS']],
  );
  assert.deepEqual((await jobHistory.list(queue, { statuses: ['FAILED', 'TIMED_OUT'], limit: 10 })).jobs, []);
});

test(`[${TEST_STORE}] jobs a purge hid are neither listed nor counted in a series`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const purged = aJob(queue);
  await jobs.insert(purged);
  assert.equal(await jobs.purgeQueued(queue), 1);
  const after = aJob(queue);
  await jobs.insert(after);

  for (const statuses of [[], ['IN_QUEUE']] as const) {
    const page = await jobHistory.list(queue, { statuses, limit: 10 });
    assert.deepEqual(
      page.jobs.map((j) => j.id),
      [after.id],
      `statuses ${JSON.stringify(statuses)}`,
    );
  }
  const [point] = await jobHistory.series(queue, { from: NOW - 60_000, to: NOW + 3_600_000, stepMs: 3_660_000 });
  assert.deepEqual([point!.queued, point!.submitted], [1, 1]);
});
