// What one replica tells the others rides on the statements that change the job, and what they
// need to answer comes along: a job queued on one replica wakes the takers of another when its
// insert commits, with no NOTIFY of its own; a job finished on one replica answers the waiters on
// another with the state its completion returned (src/cluster/events.ts), as a local wake-up hands
// it over, so they do not read the job again. What a user would notice: a take that waits for the
// slow re-check, a wrong or garbled result, a result too large to go along that is lost, or a late
// notification of an earlier attempt answering for a job that was retried since.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Cancellation } from '../src/domain/cancellation.js';
import { decodeEvent, encodeEvent, finishedJobOf, finishedJobText, MAX_FINISHED_BYTES, type FinishedJob } from '../src/cluster/events.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { startReplica, stopReplica, type Replica } from './support/in-process-replicas.js';
import { sleep } from './support/live.js';
import { statementNames } from './support/statement-names.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (results across replicas)`);
const skip = NO_POSTGRES ?? false;

let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let a: Replica;
let b: Replica;
let key: string;
let endpointId: string;

// The fallback re-check is far away: only a notification wakes a waiter in these tests.
const startReplicaOfTest = () => startReplica(schema.url, { eventFallbackMs: '60000' });

const call = (replica: Replica, method: string, url: string, body?: unknown) =>
  replica.app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });

const poolsOf = (replica: Replica) => [replica.store.pool, replica.store.batchPool];

/** A worker on replica `on` takes the next job of the endpoint (waiting for one) and reports `report` for it. */
async function work(on: Replica, workerId: string, result: { output?: unknown; error?: string }): Promise<string> {
  const [job] = await on.services.workerProtocol.take(endpointId, workerId, 1, new Cancellation(), 10_000);
  assert.ok(job, `a worker on the other replica took nothing`);
  await on.services.workerProtocol.done(endpointId, workerId, job.id, {
    kind: 'result',
    status: result.error === undefined ? 'COMPLETED' : 'FAILED',
    output: result.output === undefined ? null : JSON.stringify(result.output),
    error: result.error ?? null,
    stopPod: false,
  });
  return job.id;
}

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  a = await startReplicaOfTest();
  b = await startReplicaOfTest();
  key = (await a.services.apiKeys.create({ name: 'admin' })).token;
  const created = await call(a, 'POST', '/v2/serverless', queueEndpointBody('finished-across'));
  assert.equal(created.statusCode, 201, created.body);
  endpointId = created.json<{ id: string }>().id;
});

after(async () => {
  if (skip) return;
  for (const replica of [a, b]) await stopReplica(replica);
  await schema.drop();
});

test('jobs submitted together on B wake as many workers waiting on A, not one', { skip }, async () => {
  const workers = Array.from({ length: 8 }, (_, i) => `together-${i}`);
  // A take not woken would answer only at its deadline (30 s) or the fallback re-check (60 s).
  const takes = workers.map((workerId) => a.services.workerProtocol.take(endpointId, workerId, 1, new Cancellation(), 30_000));
  await sleep(300); // the takes on A found nothing and wait
  const submitted = await Promise.all(
    workers.map(async (n) => (await call(b, 'POST', `/v2/${endpointId}/run`, { input: { n } })).json<{ id: string }>().id),
  );
  const woken = await Promise.race([Promise.all(takes), sleep(5000).then(() => 'some takes were not woken')]);
  assert.notEqual(typeof woken, 'string', 'some takes were not woken by the submits');
  const taken = (woken as Awaited<(typeof takes)[number]>[]).map(([job]) => job?.id);
  assert.deepEqual([...taken].sort(), [...submitted].sort(), 'every waiting take got one of the jobs');
  await Promise.all(takes);
});

test('a job submitted on B reaches a worker waiting on A with its insert alone, no NOTIFY of its own', { skip }, async () => {
  const taking = a.services.workerProtocol.take(endpointId, 'worker-waiting', 1, new Cancellation(), 8000);
  await sleep(300); // A's take found nothing and waits
  let jobId = '';
  const names = await statementNames(poolsOf(b), async () => {
    jobId = (await call(b, 'POST', `/v2/${endpointId}/run`, { input: { to: 'a waiting worker' } })).json<{ id: string }>().id;
    const [taken] = await taking;
    assert.equal(taken?.id, jobId, 'the take on A was woken by the submit on B');
    await sleep(100); // time for a NOTIFY of its own, had one been sent
  });
  assert.deepEqual(
    names.filter((name) => name.startsWith('gantry_jobs_') || name === 'gantry_notify'),
    ['gantry_jobs_insert'],
  );
  await a.services.workerProtocol.done(endpointId, 'worker-waiting', jobId, {
    kind: 'result',
    status: 'COMPLETED',
    output: null,
    error: null,
    stopPod: false,
  });
});

test('a batch submitted on B wakes every take waiting on A with its one insert; each gets its share', { skip }, async () => {
  // The takes would wait 30 s: one not woken by the batch's notification answers only then.
  const takes = ['batch-1', 'batch-2'].map((workerId) =>
    a.services.workerProtocol.take(endpointId, workerId, 2, new Cancellation(), 30_000),
  );
  await sleep(300); // A's takes found nothing and wait
  let ids: string[] = [];
  const names = await statementNames(poolsOf(b), async () => {
    const res = await call(b, 'POST', `/v2/${endpointId}/run-batch`, { jobs: [1, 2, 3, 4].map((n) => ({ input: { n } })) });
    assert.equal(res.statusCode, 200, res.body);
    ids = res.json<{ jobs: { id: string }[] }>().jobs.map((job) => job.id);
    await sleep(100); // time for a NOTIFY of its own, had one been sent
  });
  const notWoken = new Promise<'not woken'>((resolve) => setTimeout(() => resolve('not woken'), 10_000).unref());
  const taken = await Promise.race([Promise.all(takes), notWoken]);
  assert.notEqual(taken, 'not woken', 'both takes on A were woken by the batch');
  const jobs = taken as Awaited<(typeof takes)[number]>[];
  assert.deepEqual(
    jobs.map((share) => share.length),
    [2, 2],
  );
  assert.deepEqual(
    jobs
      .flat()
      .map((job) => job.id)
      .sort(),
    [...ids].sort(),
  );
  assert.deepEqual(
    names.filter((name) => name.startsWith('gantry_jobs_') || name === 'gantry_notify'),
    ['gantry_jobs_insert'],
  );
  for (const [i, share] of jobs.entries()) {
    for (const job of share) {
      await a.services.workerProtocol.done(endpointId, `batch-${i + 1}`, job.id, {
        kind: 'result',
        status: 'COMPLETED',
        output: null,
        error: null,
        stopPod: false,
      });
    }
  }
});

test('a runsync on B answers with the result reported on A, exactly, without reading the job again', { skip }, async () => {
  const output = { text: 'é, 😀, a line\u2028separator, "quotes" and \\ slashes', n: [1, 2.5, null] };
  const working = work(a, 'worker-small', { output });
  let answer!: Awaited<ReturnType<typeof call>>;
  const names = await statementNames(poolsOf(b), async () => {
    answer = await call(b, 'POST', `/v2/${endpointId}/runsync?wait=8000`, { input: { size: 'small' } });
  });
  await working;
  assert.equal(answer.statusCode, 200, answer.body);
  assert.equal(answer.json<{ status: string }>().status, 'COMPLETED', answer.body);
  assert.deepEqual(answer.json<{ output: unknown }>().output, output);
  assert.ok(names.includes('gantry_jobs_insert'), `B wrote the job: ${names.join(', ')}`);
  assert.ok(!names.includes('gantry_jobs_get'), `B read the job it was sent: ${names.join(', ')}`);
});

test('a result too large to go along is read by the waiting replica, whole', { skip }, async () => {
  const output = { text: 'ü'.repeat(3000) };
  const working = work(a, 'worker-large', { output });
  let answer!: Awaited<ReturnType<typeof call>>;
  const names = await statementNames(poolsOf(b), async () => {
    answer = await call(b, 'POST', `/v2/${endpointId}/runsync?wait=8000`, { input: { size: 'large' } });
  });
  await working;
  assert.equal(answer.json<{ status: string }>().status, 'COMPLETED', answer.body);
  assert.deepEqual(answer.json<{ output: unknown }>().output, output);
  assert.ok(names.includes('gantry_jobs_get'), `B answered a large result it never read: ${names.join(', ')}`);
});

test('a late notification of an attempt before a retry does not answer for the job', { skip }, async () => {
  const submitted = await call(b, 'POST', `/v2/${endpointId}/run`, { input: { attempt: 'first' } });
  const jobId = submitted.json<{ id: string }>().id;
  assert.equal(await work(a, 'worker-retried', { error: 'first attempt failed' }), jobId);
  const firstAttempt = await a.store.jobs.get(jobId);
  assert.equal(firstAttempt?.status, 'FAILED');
  const retried = await call(b, 'POST', `/v2/${endpointId}/retry/${jobId}`);
  assert.equal(retried.statusCode, 200, retried.body);

  const waiting = call(b, 'GET', `/v2/${endpointId}/status-sync/${jobId}?wait=8000`);
  await sleep(300); // B has read the job (queued again) and waits
  // The first attempt's notification, as a replica that sent it late would: it must not end the wait.
  a.services.events.jobChanged(jobId, firstAttempt);
  await sleep(300);
  assert.equal(await work(a, 'worker-retried', { output: 'second attempt' }), jobId);
  const answer = await waiting;
  assert.equal(answer.json<{ status: string }>().status, 'COMPLETED', answer.body);
  assert.equal(answer.json<{ output: unknown }>().output, 'second attempt');
  assert.equal(answer.json<{ retries: number }>().retries, 1);
});

const aFinishedJob = (output: string | null): FinishedJob => ({
  id: 'job-1',
  endpointId: 'endpoint-1',
  status: 'COMPLETED',
  submittedAt: 1000,
  startedAt: 1005,
  completedAt: 1010,
  output,
  error: null,
  retries: 2,
  expiresAt: 99_000,
});

test('a final state goes along as ASCII within its size, and reads back the same', () => {
  const job = aFinishedJob(JSON.stringify({ text: 'ü😀\u2028', quote: '"' }));
  const text = finishedJobText(job)!;
  assert.match(text, /^[\x20-\x7e]+$/, 'ASCII only: its length is its size in bytes in any database encoding');
  const line = encodeEvent({ kind: 'job', id: job.id, finished: text });
  const event = decodeEvent(line);
  assert.deepEqual(event, { kind: 'job', id: job.id, finished: text });
  assert.deepEqual(finishedJobOf(job.id, text), job);
  // Small in characters but large in bytes once escaped: not sent along.
  assert.equal(finishedJobText(aFinishedJob(JSON.stringify('ü'.repeat(MAX_FINISHED_BYTES / 3)))), undefined);
  assert.ok(finishedJobText(aFinishedJob(JSON.stringify('u'.repeat(MAX_FINISHED_BYTES / 3)))));
});

test('a job event of a replica that sends no final state, or a broken one, only wakes', () => {
  assert.deepEqual(decodeEvent('j job-1'), { kind: 'job', id: 'job-1' });
  assert.deepEqual(decodeEvent('q endpoint-1 3'), { kind: 'queued', id: 'endpoint-1', count: 3 });
  assert.equal(decodeEvent('x job-1'), undefined);
  assert.equal(decodeEvent('j'), undefined);
  const text = finishedJobText(aFinishedJob('1'))!;
  assert.equal(finishedJobOf('job-2', text), undefined, 'the state of another job');
  assert.equal(finishedJobOf('job-1', text.slice(0, -1)), undefined, 'cut short');
  assert.equal(finishedJobOf('job-1', text.replace('COMPLETED', 'IN_PROGRESS')), undefined, 'not final');
});
