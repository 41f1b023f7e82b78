// run-batch: several jobs queued in one request, over a real socket. All of a batch is queued or
// none of it, in the order sent, and workers long-polling at that moment get their share at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';

let g: Live;
before(async () => {
  // No address is let through the webhook guard: a loopback webhook is refused at submit. Each job
  // counts against the rate limits, and the file queues some ten thousand.
  g = await startLive({ webhookAllowCidrs: '', rateLimitMinute: '1000000', rateLimitHour: '1000000' });
});
after(() => g.close());

const takeBatch = (worker: string, size: number) => g.worker('GET', `/job-take-batch/${worker}?gpu=none&batch_size=${size}`);
const inQueue = async () => (await g.queue('GET', '/health')).json.jobs.inQueue as number;

/** Takes every queued job, so each test starts with an empty queue. */
async function drain(): Promise<void> {
  while ((await inQueue()) > 0) await takeBatch('drainer', 64);
}

describe('run-batch', () => {
  test('queues every job in the order sent; each has its own id, status and input', async () => {
    await drain();
    const inputs = [{ n: 1 }, { n: 2, nested: { deep: [true] } }, { n: 3 }];
    const res = await g.queue('POST', '/run-batch', { jobs: inputs.map((input) => ({ input })) });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const ids = (res.json.jobs as { id: string; status: string }[]).map((job) => {
      assert.equal(job.status, 'IN_QUEUE');
      return job.id;
    });
    assert.equal(new Set(ids).size, 3, 'three distinct ids');
    for (const id of ids) assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'IN_QUEUE');
    const taken = await takeBatch('w1', 10);
    assert.deepEqual(
      taken.json,
      ids.map((id, i) => ({ id, input: inputs[i] })),
    );
  });

  test('each job keeps its own policy', async () => {
    await drain();
    const res = await g.queue('POST', '/run-batch', {
      jobs: [{ input: { a: 1 }, policy: { lowPriority: true } }, { input: { b: 2 } }],
    });
    assert.equal(res.status, 200);
    const [low, normal] = res.json.jobs as { id: string }[];
    const first = await takeBatch('w2', 1);
    assert.equal(first.json[0].id, normal!.id, 'the normal job goes before the low-priority one sent ahead of it');
    const second = await takeBatch('w2', 1);
    assert.equal(second.json[0].id, low!.id);
  });

  test('a worker long-polling when the batch arrives gets as many as it asked for at once; the rest wait in the queue', async () => {
    await drain();
    const waiting = takeBatch('w3', 2);
    await eventually(settledTake);
    const res = await g.queue('POST', '/run-batch', { jobs: [1, 2, 3, 4, 5].map((n) => ({ input: { n } })) });
    assert.equal(res.status, 200);
    const ids = (res.json.jobs as { id: string }[]).map((job) => job.id);
    const taken = await waiting;
    assert.deepEqual(
      (taken.json as { id: string }[]).map((job) => job.id),
      ids.slice(0, 2),
    );
    for (const id of ids.slice(0, 2)) {
      const row = await g.services.store.jobs.get(id);
      assert.deepEqual(
        [row?.status, row?.workerId, row?.startedAt === row?.submittedAt],
        ['IN_PROGRESS', 'w3', true],
        'started as submitted',
      );
    }
    assert.equal(await inQueue(), 3);
  });

  test('an invalid job refuses the whole batch, naming where it is; nothing is queued', async () => {
    await drain();
    const res = await g.queue('POST', '/run-batch', { jobs: [{ input: { ok: true } }, { input: 'not an object' }, { input: {} }] });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.deepEqual(res.json.errors, ['jobs[1].input: must be object']);
    assert.equal(await inQueue(), 0);
  });

  test('a refused webhook on one job refuses the batch, naming the job; nothing is queued', async () => {
    await drain();
    const res = await g.queue('POST', '/run-batch', {
      jobs: [{ input: {} }, { input: {} }, { input: {}, webhook: 'http://127.0.0.1:9/hook' }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.json));
    assert.match(res.json.errors[0], /^jobs\[2\]\.webhook: must not point at a private/);
    assert.equal(await inQueue(), 0);
  });

  test('a batch holds 1 to 1000 jobs and at most 10 MB', async () => {
    await drain();
    const empty = await g.queue('POST', '/run-batch', { jobs: [] });
    assert.equal(empty.status, 400);
    const tooMany = await g.queue('POST', '/run-batch', { jobs: Array.from({ length: 1001 }, () => ({ input: {} })) });
    assert.equal(tooMany.status, 400);
    assert.match(JSON.stringify(tooMany.json), /1000/);
    const missing = await g.queue('POST', '/run-batch', { input: {} });
    assert.equal(missing.status, 400);
    const large = await g.queue('POST', '/run-batch', {
      jobs: Array.from({ length: 11 }, () => ({ input: { text: 'x'.repeat(1024 * 1024) } })),
    });
    assert.equal(large.status, 413);
    assert.equal(await inQueue(), 0);
    const most = await g.queue('POST', '/run-batch', { jobs: Array.from({ length: 1000 }, (_, n) => ({ input: { n } })) });
    assert.equal(most.status, 200);
    assert.equal(most.json.jobs.length, 1000);
    assert.equal(await inQueue(), 1000);
  });

  test('when the store fails, none is queued and a worker waiting meanwhile still gets the next job', async () => {
    await drain();
    const jobs = g.services.store.jobs;
    const insertAll = jobs.insertAll.bind(jobs);
    const waiting = takeBatch('w4', 4);
    await eventually(settledTake);
    jobs.insertAll = () => Promise.reject(new Error('disk full'));
    const failed = await g.queue('POST', '/run-batch', { jobs: [{ input: { lost: 1 } }, { input: { lost: 2 } }] });
    jobs.insertAll = insertAll;
    assert.equal(failed.status, 500);
    assert.equal(await inQueue(), 0);
    const next = await g.queue('POST', '/run', { input: { after: true } });
    const taken = await waiting;
    assert.deepEqual(
      (taken.json as { id: string }[]).map((job) => job.id),
      [next.json.id],
    );
  });
});

describe('gantry jobs run-batch', () => {
  const env = () => ({ GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey });

  test('queues a JSON Lines file of 2,500 jobs in requests of at most 1000 and prints their ids in file order', async () => {
    await drain();
    // Inputs and whole requests mixed, blank lines skipped.
    const lines = Array.from({ length: 2500 }, (_, n) => (n % 2 === 0 ? JSON.stringify({ n }) : JSON.stringify({ input: { n } })));
    lines.splice(10, 0, '');
    const run = await cli(['jobs', 'run-batch', g.endpointId, '-'], env(), `${lines.join('\n')}\n`);
    assert.equal(run.status, 0, run.stderr);
    const ids = run.stdout.trim().split('\n');
    assert.equal(ids.length, 2500);
    assert.equal(await inQueue(), 2500);
    const taken = await takeBatch('cli', 64);
    assert.deepEqual(
      (taken.json as { id: string; input: { n: number } }[]).map((job) => [job.id, job.input.n]),
      ids.slice(0, 64).map((id, n) => [id, n]),
    );
  });

  test('an invalid job names its line; nothing of its request is queued, and what went before is said', async () => {
    await drain();
    const lines = Array.from({ length: 1003 }, (_, n) => JSON.stringify({ n }));
    lines[1001] = JSON.stringify({ input: 'not an object' });
    const run = await cli(['jobs', 'run-batch', g.endpointId, '-', '--json'], env(), lines.join('\n'));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^\s+- stdin line 1002: input: must be object$/m);
    assert.match(run.stderr, /^nothing from stdin line 1001 on was queued; the 1000 jobs before it are queued$/m);
    assert.equal(JSON.parse(run.stdout).length, 1000, '--json still lists the jobs queued');
    assert.equal(await inQueue(), 1000);
  });

  test('a request that fails is sent again with its key; a run cut short resumes with --idempotency-key, queuing nothing twice', async () => {
    await drain();
    const lines = `${Array.from({ length: 2500 }, (_, n) => JSON.stringify({ n })).join('\n')}\n`;
    const jobs = g.services.store.jobs;
    const insertAll = jobs.insertAll.bind(jobs);
    // The first try of every request fails, and every try of the third: the CLI sends each again.
    let calls = 0;
    jobs.insertAll = (rows, key) => (++calls === 1 || rows.length === 500 ? Promise.reject(new Error('disk full')) : insertAll(rows, key));
    const cut = await cli(['jobs', 'run-batch', g.endpointId, '-', '--idempotency-key', 'nightly-import'], env(), lines);
    jobs.insertAll = insertAll;
    assert.equal(cut.status, 1, cut.stderr);
    assert.match(
      cut.stderr,
      /the request from stdin line 2001 failed: its jobs may or may not be queued; the 2000 jobs before it are queued/,
    );
    assert.match(cut.stderr, /run the same command with --idempotency-key nightly-import within a day to queue the rest/);
    const first = cut.stdout.trim().split('\n');
    assert.equal(first.length, 2000);
    assert.equal(await inQueue(), 2000, 'the request that failed once was sent again, and queued once');
    const resumed = await cli(['jobs', 'run-batch', g.endpointId, '-', '--idempotency-key', 'nightly-import'], env(), lines);
    assert.equal(resumed.status, 0, resumed.stderr);
    const ids = resumed.stdout.trim().split('\n');
    assert.deepEqual(ids.slice(0, 2000), first, 'the requests queued before are answered with their jobs');
    assert.equal(new Set(ids).size, 2500);
    assert.equal(await inQueue(), 2500);
  });

  test('a line that is not JSON sends nothing', async () => {
    await drain();
    const run = await cli(['jobs', 'run-batch', g.endpointId, '-'], env(), '{"n": 1}\n{oops\n');
    assert.equal(run.status, 2);
    assert.match(run.stderr, /stdin line 2 is not valid JSON/);
    assert.equal(await inQueue(), 0);
  });
});

/** True once a take is long-polling on the endpoint, ready to be handed jobs. */
async function settledTake(): Promise<boolean> {
  return g.services.events.queues.count(g.endpointId) > 0;
}
