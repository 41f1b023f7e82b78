// The worker SDK posting results that finish together in one job-done-batch where the server has
// it, and, on a server that takes with results (Gantry), getting its next jobs back in the same
// exchange; a failed or ignored exchange loses nothing. Against the fake queue of
// support/worker-sdk-rig.ts.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { doneBodies, fake, logs, startWorker, stopWorkerAndQueue, until, type Seen } from './support/worker-sdk-rig.js';

afterEach(stopWorkerAndQueue);

test('results finished together go in one job-done-batch where the server has it, one job-done each where not', async () => {
  const together = Array.from({ length: 4 }, (_, i) => ({ id: `t${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.jobs.push(...together);
  const [posted] = await until(() => fake.requests('job-done-batch').length > 0 && fake.requests('job-done-batch'), 'a result batch');
  assert.equal(posted!.path, '/v2/ep/job-done-batch/w1');
  assert.equal(posted!.query.get('runtime'), 'gantry');
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 4, 'all four results');
  assert.deepEqual(
    fake
      .requests('job-done-batch')
      .flatMap((s) => s.body.results)
      .sort((a, b) => a.output - b.output),
    together.map(({ id }, i) => ({ id, output: i })),
  );
  assert.equal(fake.requests('job-done').length, 0);

  fake.batchResults = false;
  fake.jobs.push(...together.map((job) => ({ ...job, id: `r${job.id}` })));
  await until(() => together.every((job) => doneBodies(`r${job.id}`).length === 1), 'each result on job-done after a 404');
  assert.deepEqual(logs, [], 'nothing lost');
});

test('on a server that takes with results, the next jobs come back with the last results: one exchange per cycle', async () => {
  const backlog = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.jobs.push(...backlog);
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 12, 'all twelve results');
  assert.deepEqual(
    backlog.map(({ id }) => fake.handedBy.get(id)),
    [...Array(4).fill('job-take-batch'), ...Array(8).fill('job-done-batch')],
    'after the first take, each batch of jobs came back with the results of the one before',
  );
  const carrying = fake.requests('job-done-batch').filter((s) => s.query.get('take'));
  assert.deepEqual(
    carrying.slice(0, 2).map((s) => [s.query.get('take'), s.body.results.length]),
    [
      ['4', 4],
      ['4', 4],
    ],
  );
  assert.equal(fake.requests('job-done').length, 0);
  assert.deepEqual(logs, [], 'every result accepted once');
});

test('a take that brings fewer jobs than slots: the next take still waits for their results and carries them', async () => {
  const backlog = Array.from({ length: 13 }, (_, i) => ({ id: `s${i}`, input: { result: i } }));
  await startWorker({ concurrency: 4 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.takeCaps.push(1);
  fake.jobs.push(...backlog);
  await until(() => fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 13, 'all thirteen results');
  assert.deepEqual(
    backlog.map(({ id }) => fake.handedBy.get(id)),
    ['job-take-batch', ...Array(12).fill('job-done-batch')],
    'after the short take, every job came back with the results of the ones before',
  );
  assert.deepEqual(
    fake
      .requests('job-done-batch')
      .filter((s) => s.query.get('take'))
      .map((s) => [s.query.get('take'), s.body.results.length]),
    [
      ['4', 1],
      ['4', 4],
      ['4', 4],
      ['4', 4],
    ],
    'one exchange per cycle, each asking for every slot',
  );
  assert.deepEqual(logs, []);
});

test('a take with results that fails sends those results again without taking, and jobs are taken the usual way', async () => {
  await startWorker({ concurrency: 2 });
  fake.batchResults = true;
  fake.takesWithResults = true;
  fake.carryAnswers.push(500, 'drop');
  fake.jobs.push(...['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map((id) => ({ id, input: { result: id } })));
  const ids = (posts: Seen[]) => posts.flatMap((s) => s.body.results.map((r: { id: string }) => r.id as string));
  const answered = () => ids(fake.requests('job-done-batch').filter((s) => !fake.failedCarries.includes(s)));
  await until(() => answered().length === 6, 'every result answered');
  const failed = ids(fake.failedCarries);
  const resent = ids(fake.requests('job-done-batch').filter((s) => !s.query.get('take')));
  assert.equal(fake.failedCarries.length, 2);
  assert.deepEqual(
    failed.filter((id) => !resent.includes(id)),
    [],
    'the results of the failed exchanges went again on their own, none lost',
  );
  assert.ok(
    [...fake.handedBy.values()].some((kind) => kind.startsWith('job-take')),
    'jobs were taken the usual way meanwhile',
  );
  await until(() => logs.length === 0 && fake.requests('ping').some((p) => !p.query.has('job_id')), 'the worker idle');
  assert.deepEqual(logs, []);
});

test('a server that ignores take gets the results once and is asked with job-take from then on', async () => {
  await startWorker({ concurrency: 2 });
  fake.batchResults = true;
  fake.jobs.push(...['o1', 'o2', 'o3', 'o4', 'o5', 'o6'].map((id) => ({ id, input: { result: id } })));
  await until(() => fake.jobs.length === 0 && fake.requests('job-done-batch').flatMap((s) => s.body.results).length === 6, 'every result');
  assert.equal(fake.requests('job-done-batch').filter((s) => s.query.get('take')).length, 1, 'asked once');
  assert.ok([...fake.handedBy.values()].every((kind) => kind === 'job-take-batch' || kind === 'job-take'));
  assert.deepEqual(logs, []);
});
