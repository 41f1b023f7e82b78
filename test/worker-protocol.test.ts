// The worker protocol as RunPod SDK workers speak it, over a real socket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, sleep, startLive, type Live } from './support/live.js';
import { Cancellation } from '../src/domain/cancellation.js';
import { submitToEndingTake } from './support/handoff.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const take = (worker = 'w1') => g.worker('GET', `/job-take/${worker}?gpu=none&job_in_progress=0`);
const done = (jobId: string, body: string, worker = 'w1', isStream = false) =>
  g.worker('POST', `/job-done/${worker}/${jobId}?gpu=none&isStream=${isStream}`, body);
const run = async (input: Record<string, unknown> = {}) => (await g.queue('POST', '/run', { input })).json.id as string;
const status = async (id: string) => (await g.queue('GET', `/status/${id}`)).json;

describe('authentication', () => {
  test('the credential is sent raw; a Bearer prefix is tolerated', async () => {
    assert.equal((await g.worker('GET', '/ping/w1')).status, 200);
    assert.equal((await g.worker('GET', '/ping/w1', undefined, undefined, `Bearer ${g.workerKey}`)).status, 200);
  });

  test("API keys and unknown credentials are 401; another endpoint's credential is 403", async () => {
    assert.equal((await g.worker('GET', '/ping/w1', undefined, undefined, g.adminKey)).status, 401);
    assert.equal((await g.worker('GET', '/ping/w1', undefined, undefined, 'gantry_wk_aaaaaaaaaaaa_' + 'b'.repeat(43))).status, 401);
    const second = await g.call('POST', '/v2/serverless', {
      name: 'second',
      type: 'QUEUE',
      scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
      image: 'x',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    });
    const other = await g.services.workerCredentials.create(second.json().id);
    const res = await g.worker('GET', '/job-take/w1', undefined, undefined, other);
    assert.equal(res.status, 403);
    const orphan = await g.services.workerCredentials.create('deletedendpnt');
    assert.equal((await g.worker('GET', '/job-take/w1', undefined, undefined, orphan)).status, 401, 'no endpoint, no access');
  });

  test('a worker credential cannot use the client queue API', async () => {
    assert.equal((await g.queue('POST', '/run', { input: {} }, g.workerKey)).status, 401);
  });
});

describe('take', () => {
  test('an idle long-poll answers the moment a job arrives', async () => {
    const pending = take();
    await sleep(100);
    const id = await run({ late: true });
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.json.id, id);
    await done(id, '{"output":1}');
  });

  test('an empty queue answers 204 after the bounded wait', async () => {
    const started = Date.now();
    const res = await take();
    assert.equal(res.status, 204);
    assert.ok(Date.now() - started >= 1400, 'held for the configured wait');
  });

  test('job-take-batch answers an array of up to batch_size jobs', async () => {
    const ids = [await run({ i: 1 }), await run({ i: 2 }), await run({ i: 3 })];
    const res = await g.worker('GET', '/job-take-batch/w1?gpu=none&job_in_progress=0&batch_size=2');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.map((j: { id: string }) => j.id),
      ids.slice(0, 2),
    );
    const rest = await g.worker('GET', '/job-take-batch/w1?batch_size=5');
    assert.deepEqual(
      rest.json.map((j: { id: string }) => j.id),
      ids.slice(2),
    );
    for (const id of ids) await done(id, '{"output":null}');
  });

  test('two workers never receive the same job', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => run({ i })));
    const seen: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map(async (worker) => {
        for (;;) {
          const res = await g.worker('GET', `/job-take-batch/${worker}?batch_size=3`);
          if (res.status === 204) return;
          for (const job of res.json) {
            seen.push(job.id);
            await done(job.id, '{"output":true}', worker);
          }
          if (seen.length === ids.length) return;
        }
      }),
    );
    assert.deepEqual([...seen].sort(), [...ids].sort());
  });

  test('a job taken as its long-poll ends goes straight back to the queue, without a retry counted', async () => {
    const id = await run({ orphaned: true });
    // The client leaves while the take commits: the take has the job, but no answer can carry it.
    const clientLeft = new Cancellation();
    const taking = g.services.workerProtocol.take(g.endpointId, 'w-left', 1, clientLeft);
    clientLeft.abort();
    assert.deepEqual(await taking, []);
    const next = await g.worker('GET', '/job-take/w2?batch_size=1');
    assert.equal(next.status, 200, 'the next worker gets it now, not after the lease lapses');
    assert.equal(next.json.id, id);
    const row = await g.services.store.jobs.get(id);
    assert.deepEqual([row?.workerId, row?.retries], ['w2', 0]);
    await done(id, '{"output":1}', 'w2');
  });

  test('a job submitted while a worker long-polls is stored already taken by it, and answers that long-poll', async () => {
    const pending = take('w-idle');
    await sleep(100);
    const jobs = g.services.store.jobs;
    const storeTake = jobs.take.bind(jobs);
    let takes = 0;
    jobs.take = (...args) => (takes++, storeTake(...args));
    let submitted;
    try {
      submitted = await g.queue('POST', '/run', { input: { handed: true } });
      assert.equal((await pending).json.id, submitted.json.id);
    } finally {
      jobs.take = storeTake;
    }
    assert.equal(submitted.json.status, 'IN_QUEUE', 'a submit answers as the contract says, however soon the job starts');
    assert.equal(takes, 0, 'the write that stored the job gave it to the worker: no take went to the store');
    const row = await g.services.store.jobs.get(submitted.json.id);
    assert.deepEqual([row?.status, row?.workerId, row?.startedAt === row?.submittedAt], ['IN_PROGRESS', 'w-idle', true]);
    await done(submitted.json.id, '{"output":1}', 'w-idle');
    assert.equal((await status(submitted.json.id)).status, 'COMPLETED');
  });

  test('a job handed to a long-poll that ended meanwhile goes back to the queue, without a retry counted', async () => {
    const { job, taken } = await submitToEndingTake(g, 'w-gone', { gone: true });
    assert.deepEqual(taken, []);
    const row = await g.services.store.jobs.get(job.id);
    assert.deepEqual([row?.status, row?.workerId, row?.retries], ['IN_QUEUE', null, 0]);
    const next = await g.worker('GET', '/job-take/w2?batch_size=1');
    assert.equal(next.json.id, job.id, 'the next worker gets it now, not after the lease lapses');
    await done(job.id, '{"output":1}', 'w2');
  });

  test('a worker frozen while it long-polls is not handed a job; a worker that can run it takes it', async () => {
    const clientLeft = new Cancellation();
    const frozenTake = g.services.workerProtocol.take(g.endpointId, 'w-frozen', 1, clientLeft);
    let frozenAnswered = false;
    void frozenTake.then(() => (frozenAnswered = true));
    await sleep(100);
    g.services.workers.park('w-frozen');
    try {
      const id = await run({ frozen: true });
      const row = await g.services.store.jobs.get(id);
      assert.deepEqual([row?.status, row?.workerId], ['IN_QUEUE', null]);
      const next = await g.worker('GET', '/job-take/w-ready?batch_size=1');
      assert.equal(next.json.id, id);
      await done(id, '{"output":1}', 'w-ready');
      assert.equal(frozenAnswered, false, 'the frozen worker’s long-poll stays open, with no job');
    } finally {
      g.services.workers.unpark('w-frozen');
      clientLeft.abort();
    }
    assert.deepEqual(await frozenTake, []);
  });
});

describe('done', () => {
  test('a raw JSON body under a form content type is read as JSON', async () => {
    const id = await run();
    await take();
    const res = await done(id, '{"output": {"answer": 42}}');
    assert.equal(res.status, 200);
    assert.deepEqual((await status(id)).output, { answer: 42 });
  });

  test('{error} forms mean FAILED, never COMPLETED', async () => {
    for (const body of [
      '{"error": "handler crashed"}',
      '{"output": {"x": 1}, "error": "bad"}',
      '{"error": "{\\"type\\": \\"ValueError\\"}"}',
    ]) {
      const id = await run();
      await take();
      await done(id, body);
      const s = await status(id);
      assert.equal(s.status, 'FAILED', body);
      assert.equal(typeof s.error, 'string');
    }
  });

  test('a progress update is not a completion, and the final result still lands', async () => {
    const id = await run();
    await take();
    await done(id, '{"status": "IN_PROGRESS", "output": {"step": 1}}');
    const mid = await status(id);
    assert.deepEqual([mid.status, mid.output], ['IN_PROGRESS', { step: 1 }]);
    await done(id, '{"output": {"result": "final"}}');
    const end = await status(id);
    assert.deepEqual([end.status, end.output], ['COMPLETED', { result: 'final' }]);
  });

  test('repeated identical done posts are harmless', async () => {
    const id = await run();
    await take();
    const first = await done(id, '{"output": "once"}');
    const second = await done(id, '{"output": "once"}');
    assert.deepEqual([first.status, second.status], [200, 200]);
    const s = await status(id);
    assert.deepEqual([s.status, s.output], ['COMPLETED', 'once']);
    assert.equal((await done('no-such-job', '{"output": 1}')).status, 200, 'a result for a job that is gone is accepted quietly');
  });

  test('an output too large to store fails the job with a clear error', async () => {
    const small = await startLive({ maxOutputBytes: '65536' });
    try {
      const id = (await small.queue('POST', '/run', { input: {} })).json.id;
      await small.worker('GET', '/job-take/w1');
      const res = await small.worker('POST', `/job-done/w1/${id}?isStream=false`, JSON.stringify({ output: 'x'.repeat(100_000) }));
      assert.equal(res.status, 200, 'the worker is not told to retry');
      const s = (await small.queue('GET', `/status/${id}`)).json;
      assert.equal(s.status, 'FAILED');
      assert.match(s.error, /^the job's output of \d+ bytes exceeds this deployment's limit of 65536 bytes$/);
      assert.equal(s.output, undefined);
    } finally {
      await small.close();
    }
  });

  test('stopPod marks the worker for recycling', async () => {
    const id = await run();
    await take('recycler');
    await done(id, '{"output": 1, "stopPod": true}', 'recycler');
    assert.equal(g.services.workers.recycleRequested('recycler'), true);
    assert.equal((await status(id)).status, 'COMPLETED');
  });
});

describe('stream', () => {
  test('each read returns the chunks since the previous one, and stream is always an array', async () => {
    const id = await run();
    await take();
    const stream = (chunk: unknown) => g.worker('POST', `/job-stream/w1/${id}?gpu=none&isStream=false`, JSON.stringify({ output: chunk }));
    for (let i = 0; i < 3; i++) await stream({ i });
    const first = await g.queue('GET', `/stream/${id}`);
    assert.deepEqual(first.json, { status: 'IN_PROGRESS', stream: [{ output: { i: 0 } }, { output: { i: 1 } }, { output: { i: 2 } }] });
    const empty = await g.queue('POST', `/stream/${id}`);
    assert.deepEqual(empty.json, { status: 'IN_PROGRESS', stream: [] }, 'no repeats; waits briefly then answers empty');
    const waiting = g.queue('GET', `/stream/${id}`);
    await sleep(50);
    await stream('late chunk');
    assert.deepEqual((await waiting).json.stream, [{ output: 'late chunk' }], 'a waiting read wakes on a new chunk');
    await done(id, '{"output": "all done"}', 'w1', true);
    assert.deepEqual((await g.queue('GET', `/stream/${id}`)).json, { status: 'COMPLETED', stream: [] });
  });

  test('a reader that leaves does not use up the chunks: the next read gets them', async () => {
    const id = await run();
    await take();
    await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: 'kept' }));
    const clientLeft = new Cancellation();
    const reading = g.services.jobs.stream(g.endpointId, id, clientLeft);
    clientLeft.abort();
    assert.deepEqual((await reading).stream, []);
    assert.deepEqual((await g.queue('GET', `/stream/${id}`)).json.stream, [{ output: 'kept' }]);
    await done(id, '{}', 'w1', true);
  });

  test('a reader that leaves while its read is at the database gets nothing, and the next read gets the chunks', async () => {
    const id = await run();
    await take();
    await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: 'in flight' }));
    const jobs = g.services.store.jobs;
    const original = jobs.readStream;
    const clientLeft = new Cancellation();
    // The client goes away the moment its read reaches the store.
    jobs.readStream = (jobId) => {
      const reading = original.call(jobs, jobId);
      clientLeft.abort();
      return reading;
    };
    try {
      assert.deepEqual((await g.services.jobs.stream(g.endpointId, id, clientLeft)).stream, []);
    } finally {
      jobs.readStream = original;
    }
    assert.deepEqual((await g.queue('GET', `/stream/${id}`)).json.stream, [{ output: 'in flight' }]);
    await done(id, '{}', 'w1', true);
  });

  test('many chunks arrive in order', async () => {
    const id = await run();
    await take();
    for (let i = 0; i < 200; i++) await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: i }));
    await done(id, '{}', 'w1', true);
    const got: number[] = [];
    for (;;) {
      const res = await g.queue('GET', `/stream/${id}`);
      got.push(...res.json.stream.map((c: { output: number }) => c.output));
      if (res.json.stream.length === 0) break;
    }
    assert.deepEqual(
      got,
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  test('a chunk over 1 MB is split', async () => {
    const id = await run();
    await take();
    const text = 'é'.repeat(700_000);
    await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: text }));
    const res = await g.queue('GET', `/stream/${id}`);
    assert.ok(res.json.stream.length >= 2);
    for (const chunk of res.json.stream) assert.ok(Buffer.byteLength(JSON.stringify(chunk.output)) <= 1024 * 1024);
    assert.equal(res.json.stream.map((c: { output: string }) => c.output).join(''), text);
    await done(id, '{}', 'w1', true);
  });

  test('any JSON value over 1 MB is split into parts a client joins back, escapes counted', async () => {
    const id = await run();
    await take();
    // Quotes double in JSON: 600,000 of them are 1.2 MB once written as a string.
    const quotes = '"'.repeat(600_000);
    const value = { rows: Array.from({ length: 3 }, (_, i) => ({ i, quotes })) };
    await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: quotes }));
    await g.worker('POST', `/job-stream/w1/${id}`, JSON.stringify({ output: value }));
    const res = await g.queue('GET', `/stream/${id}`);
    for (const chunk of res.json.stream) assert.ok(Buffer.byteLength(JSON.stringify(chunk.output)) <= 1024 * 1024);
    const strings = res.json.stream.filter((c: { output: unknown }) => typeof c.output === 'string');
    assert.ok(strings.length >= 2);
    assert.equal(strings.map((c: { output: string }) => c.output).join(''), quotes);
    const parts = res.json.stream.filter((c: { output: unknown }) => typeof c.output === 'object').map((c: any) => c.output.gantryPart);
    assert.ok(parts.length >= 4);
    assert.ok(parts.every((p: any) => p.of === parts[0].of && p.count === parts.length));
    const joined = [...parts]
      .sort((a: any, b: any) => a.index - b.index)
      .map((p: any) => p.json)
      .join('');
    assert.deepEqual(JSON.parse(joined), value);
    await done(id, '{}', 'w1', true);
  });
});

describe('leases', () => {
  test("stream chunks renew the holder's lease; another worker's chunks do not", async () => {
    const l = await startLive({ jobLeaseMs: '400' });
    try {
      const id = (await l.queue('POST', '/run', { input: {} })).json.id;
      await l.worker('GET', '/job-take/streamer?gpu=none');
      for (let i = 0; i < 6; i++) {
        await sleep(150);
        await l.worker('POST', `/job-stream/streamer/${id}`, JSON.stringify({ output: i }));
      }
      assert.equal((await l.queue('GET', `/status/${id}`)).json.status, 'IN_PROGRESS', 'its chunks kept it leased');
      // Another worker keeps posting chunks to it: they are no reason to keep the holder's lease.
      const requeued = await eventually(async () => {
        await l.worker('POST', `/job-stream/someone-else/${id}`, JSON.stringify({ output: 'x' }));
        const s = (await l.queue('GET', `/status/${id}`)).json;
        return s.status === 'IN_QUEUE' && s;
      });
      assert.equal(requeued.retries, 1, "the lease lapsed although another worker's chunks kept coming");
    } finally {
      await l.close();
    }
  });

  test('pings renew a lease; a lapsed lease returns the job and counts a retry; too many fail it', async () => {
    const l = await startLive({ jobLeaseMs: '400', maxLeaseLosses: '2' });
    try {
      const id = (await l.queue('POST', '/run', { input: { keep: 'me' } })).json.id;
      await l.worker('GET', '/job-take/alive?gpu=none');
      for (let i = 0; i < 6; i++) {
        await sleep(150);
        await l.worker('GET', `/ping/alive?job_id=${id}`);
      }
      assert.equal((await l.queue('GET', `/status/${id}`)).json.status, 'IN_PROGRESS', 'pings kept it leased');
      const requeued = await eventually(async () => {
        const s = (await l.queue('GET', `/status/${id}`)).json;
        return s.status === 'IN_QUEUE' && s;
      });
      assert.equal(requeued.retries, 1);
      const again = await l.worker('GET', '/job-take/second?gpu=none');
      assert.deepEqual(again.json, { id, input: { keep: 'me' } });
      const failed = await eventually(async () => {
        const s = (await l.queue('GET', `/status/${id}`)).json;
        return s.status === 'FAILED' && s;
      });
      assert.match(failed.error, /lost by its workers too many times/);
    } finally {
      await l.close();
    }
  });
});
