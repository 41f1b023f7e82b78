// Submits sent with an Idempotency-Key, over a real socket: the same request sent again queues
// nothing and is answered with the jobs the first one queued; the key with another request is 422;
// a runsync sent again waits for the first one's job; a key is forgotten once it expires.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const inQueue = async () => (await g.queue('GET', '/health')).json.jobs.inQueue as number;
const keyed = (path: string, body: unknown, key: string) => g.queue('POST', path, body, undefined, { 'idempotency-key': key });
let keys = 0;
const aKey = () => `order-${process.pid}-${++keys}`;

/** Takes every queued job, so each test starts with an empty queue. */
async function drain(): Promise<void> {
  while ((await inQueue()) > 0) await g.worker('GET', '/job-take-batch/drainer?gpu=none&batch_size=64');
}

describe('Idempotency-Key', () => {
  test('run sent again with its key queues nothing and answers the same job', async () => {
    await drain();
    const key = aKey();
    const first = await keyed('/run', { input: { n: 1 } }, key);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await keyed('/run', { input: { n: 1 } }, key);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, first.json);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await inQueue(), 1, 'one job queued');
    // Without a key, the same body is another job.
    const unkeyed = await g.queue('POST', '/run', { input: { n: 1 } });
    assert.notEqual(unkeyed.json.id, first.json.id);
    assert.equal(await inQueue(), 2);
  });

  test('run-batch sent again with its key answers the same jobs in the same order', async () => {
    await drain();
    const key = aKey();
    const body = { jobs: [1, 2, 3].map((n) => ({ input: { n } })) };
    const first = await keyed('/run-batch', body, key);
    assert.equal(first.status, 200);
    const again = await keyed('/run-batch', body, key);
    assert.deepEqual(again.json, first.json);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await inQueue(), 3);
  });

  test("a request sent again with its object members in another order is the same request; its jobs' order is not", async () => {
    await drain();
    const key = aKey();
    const first = await keyed(
      '/run-batch',
      { jobs: [{ input: { a: 1, b: { c: 2, d: 3 } }, policy: { ttl: 60_000, lowPriority: false } }, { input: { n: 2 } }] },
      key,
    );
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const reordered = { jobs: [{ policy: { lowPriority: false, ttl: 60_000 }, input: { b: { d: 3, c: 2 }, a: 1 } }, { input: { n: 2 } }] };
    const again = await keyed('/run-batch', reordered, key);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.deepEqual(again.json, first.json);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const swapped = await keyed('/run-batch', { jobs: [reordered.jobs[1], reordered.jobs[0]] }, key);
    assert.equal(swapped.status, 422);
    assert.equal(await inQueue(), 2);
  });

  test('the key sent with another body or to another route is 422, and nothing is queued', async () => {
    await drain();
    const key = aKey();
    await keyed('/run', { input: { n: 1 } }, key);
    for (const [path, body] of [
      ['/run', { input: { n: 2 } }],
      ['/run', { input: { n: 1 }, policy: { lowPriority: true } }],
      ['/run-batch', { jobs: [{ input: { n: 1 } }] }],
      ['/runsync?wait=1000', { input: { n: 1 } }],
    ] as const) {
      const res = await keyed(path, body, key);
      assert.equal(res.status, 422, `${path} ${JSON.stringify(body)}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.match(res.json.detail, new RegExp(`Idempotency-Key '${key}' was already used on this endpoint for another request`));
    }
    assert.equal(await inQueue(), 1);
  });

  test('the same key sent twice at once queues one set of jobs; both are answered with it', async () => {
    await drain();
    const key = aKey();
    const body = { jobs: Array.from({ length: 20 }, (_, n) => ({ input: { n } })) };
    const answers = await Promise.all([keyed('/run-batch', body, key), keyed('/run-batch', body, key)]);
    for (const res of answers) assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(answers[0]!.json, answers[1]!.json);
    assert.deepEqual(
      answers.map((res) => res.headers.get('idempotent-replayed')).sort(),
      ['true', null].sort(),
      'one queued, the other replayed',
    );
    assert.equal(await inQueue(), 20);
  });

  test('runsync sent again with its key waits for the first one’s job and answers its result', async () => {
    await drain();
    const key = aKey();
    const first = await keyed('/runsync?wait=1000', { input: { slow: true } }, key);
    assert.equal(first.json.status, 'IN_QUEUE', 'no worker answered within the wait');
    const again = keyed('/runsync?wait=10000', { input: { slow: true } }, key);
    const taken = await eventually(async () => {
      const res = await g.worker('GET', '/job-take/w1?gpu=none');
      return res.status === 200 && res.json;
    });
    assert.equal(taken.id, first.json.id);
    await g.worker('POST', `/job-done/w1/${taken.id}?gpu=none`, JSON.stringify({ output: { done: 1 } }), 'application/json');
    const answer = await again;
    assert.deepEqual([answer.json.id, answer.json.status, answer.json.output], [first.json.id, 'COMPLETED', { done: 1 }]);
    assert.equal(answer.headers.get('idempotent-replayed'), 'true');
    assert.equal(await inQueue(), 0, 'the second runsync queued nothing');
  });

  test('a key must be 1 to 255 visible ASCII characters', async () => {
    await drain();
    for (const key of ['x'.repeat(256), 'with space', 'naïve']) {
      const res = await keyed('/run', { input: {} }, key);
      assert.equal(res.status, 400, key);
      assert.ok(
        (res.json.errors as string[]).some((line) => line.startsWith('idempotency-key: ')),
        JSON.stringify(res.json),
      );
    }
    assert.equal((await keyed('/run', { input: {} }, 'x'.repeat(255))).status, 200);
  });

  test('an expired key is forgotten by the sweeper; the key then queues anew', async () => {
    await drain();
    const key = aKey();
    const first = await keyed('/run', { input: { n: 1 } }, key);
    const stored = await g.services.store.submitKeys.find(g.endpointId, key);
    assert.deepEqual(stored?.jobIds, [first.json.id]);
    assert.ok(stored.expiresAt - stored.createdAt >= 24 * 3_600_000, 'kept at least a day');
    // A key that expired a moment ago, written as the store writes any: the sweeper (every 50 ms here) deletes it.
    const old = aKey();
    await g.services.store.jobs.insertAll([], { ...stored, key: old, expiresAt: Date.now() - 1 });
    await eventually(async () => (await g.services.store.submitKeys.find(g.endpointId, old)) === undefined);
    const fresh = await keyed('/run', { input: { n: 1 } }, old);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    assert.notEqual(fresh.json.id, first.json.id);
    assert.equal((await keyed('/run', { input: { n: 1 } }, key)).json.id, first.json.id, 'the unexpired key still holds');
  });

  test('gantry jobs run --idempotency-key run twice prints the same job', async () => {
    await drain();
    const env = { GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey };
    const args = ['jobs', 'run', g.endpointId, '--input', '{"n": 7}', '--idempotency-key', aKey(), '--quiet'];
    const runs = [await cli(args, env), await cli(args, env)];
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    assert.equal(runs[0]!.stdout, runs[1]!.stdout);
    assert.equal(await inQueue(), 1);
  });
});
