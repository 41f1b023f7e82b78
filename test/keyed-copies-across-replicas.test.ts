// Two copies of a new keyed run-batch sent to two replicas at once (a client that retries through a
// load balancer): one queues the jobs, the other is answered with them, and the account's rate
// limits count the batch once. Within one process the copies take turns (decision 41); across
// replicas both read no key yet, so the second either loses the race to store the key, having
// counted its jobs, or is refused for the requests the first one's jobs used.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHarness, type Harness } from './support/harness.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { clearOfWindowEnd } from './support/rate-windows.js';
import { eventually } from './support/live.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { startReplica, stopReplica, type Replica } from './support/in-process-replicas.js';
import { KeyedSubmits, type KeyedAnswer } from '../src/services/keyed-submits.js';
import { submitOnce } from '../src/services/submit-keys.js';
import { MoreRequests } from '../src/http/auth.js';
import { MemoryRateLimiter } from '../src/cluster/rate-limiter.js';
import { silentLogger } from '../src/domain/logger.js';
import type { ApiKeyRecord, EndpointRecord } from '../src/store/store.js';

const jobs = Array.from({ length: 6 }, (_, n) => ({ input: { n } }));

describe('keyed batch copies on two replicas of one store', () => {
  let h: Harness;
  let endpoint: EndpointRecord;
  let key: ApiKeyRecord;
  let endpointId: string;
  before(async () => {
    // The tests' limiters count in the current minute: none of it may end between two counts.
    await clearOfWindowEnd(60, 10);
    h = await startHarness();
    const created = await h.call('POST', '/v2/serverless', queueEndpointBody('copies'));
    assert.equal(created.statusCode, 201, created.body);
    endpointId = created.json<{ id: string }>().id;
    endpoint = await h.services.jobs.queueEndpoint(h.adminAccountId, endpointId);
    key = (await h.services.apiKeys.create({ name: 'producer' })).record;
  });
  after(() => h.close());

  const inQueue = async () => (await h.call('GET', `/v2/${endpointId}/health`)).json().jobs.inQueue as number;
  const minuteLeft = async (limiter: MemoryRateLimiter) =>
    (await limiter.consume(key.accountId, Date.now(), 1)).windows.find((w) => w.name === 'minute')!.remaining;

  /** Sends the batch under `idempotencyKey` to replica B, with `meanwhile` run where B counts its jobs. */
  async function copies(
    limiter: MemoryRateLimiter,
    idempotencyKey: string,
    meanwhile: (count: MoreRequests, onA: () => Promise<KeyedAnswer<string[]>>) => Promise<void>,
  ) {
    const replicaA = h.services.keyedSubmits;
    const replicaB = new KeyedSubmits(h.services.store, h.services.jobs);
    const once = submitOnce(idempotencyKey, 'run-batch', { jobs });
    const countB = new MoreRequests(limiter, key, jobs.length, silentLogger);
    let first: KeyedAnswer<string[]> | undefined;
    const onA = async () =>
      (first = await replicaA.runBatch(endpoint, jobs, once, new MoreRequests(limiter, key, jobs.length, silentLogger)));
    const second = await replicaB.runBatch(endpoint, jobs, once, {
      count: () => meanwhile(countB, onA),
      giveBack: () => countB.giveBack(),
    });
    return { first: first!, second, countB };
  }

  test('the copy that counted its jobs and lost the race to store the key gives them back', async () => {
    const queuedBefore = await inQueue();
    const limiter = new MemoryRateLimiter({ minute: 20, hour: 1000, day: 1000 });
    const { first, second, countB } = await copies(limiter, 'copies.race', async (count, onA) => {
      await count.count();
      await onA();
    });
    assert.equal(first.replayed, false);
    assert.deepEqual(second, { answer: first.answer, replayed: true });
    assert.equal(await inQueue(), queuedBefore + jobs.length);
    assert.equal(await minuteLeft(limiter), 20 - 5 - 1, "only the first copy's jobs stay counted");
    assert.deepEqual(countB.headers, {}, 'the answer carries no count that was given back');
  });

  test('the copy refused for the requests its twin’s jobs used is answered with those jobs', async () => {
    const queuedBefore = await inQueue();
    // Room for one batch of six (five more requests) and a little, not for two.
    const limiter = new MemoryRateLimiter({ minute: 8, hour: 1000, day: 1000 });
    const { first, second } = await copies(limiter, 'copies.refused', async (count, onA) => {
      await onA();
      await count.count();
    });
    assert.deepEqual(second, { answer: first.answer, replayed: true });
    assert.equal(await inQueue(), queuedBefore + jobs.length);
    assert.equal(await minuteLeft(limiter), 8 - 5 - 1);
  });
});

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (keyed copies across replicas)`);

test('over HTTP, two PostgreSQL replicas sent the same keyed batch at once count it once', { skip: NO_POSTGRES ?? false }, async () => {
  await clearOfWindowEnd(3600, 30);
  const schema = await createPostgresSchema();
  const replicas: Replica[] = [];
  const blocker = new pg.Client({ connectionString: schema.url });
  const observer = new pg.Client({ connectionString: schema.url });
  try {
    for (let i = 0; i < 2; i++) replicas.push(await startReplica(schema.url, { rateLimitHour: '100' }));
    const [a, b] = replicas as [Replica, Replica];
    const { token, record } = await a.services.apiKeys.create({ name: 'producer' });
    const call = (replica: Replica, url: string, payload: object, headers: Record<string, string> = {}) =>
      replica.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${token}`, ...headers } });
    const created = await call(a, '/v2/serverless', queueEndpointBody('copies-http'));
    assert.equal(created.statusCode, 201, created.body);
    const endpointId = created.json<{ id: string }>().id;

    // Both copies read no key, count their jobs and wait to store the key behind this lock; once it
    // is gone, one stores it and the other meets its key.
    await blocker.connect();
    await observer.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE submit_keys IN EXCLUSIVE MODE');
    const send = (replica: Replica) => call(replica, `/v2/${endpointId}/run-batch`, { jobs }, { 'idempotency-key': 'copies.http' });
    const answers = Promise.all([send(a), send(b)]);
    // Another session: within the blocker's transaction the activity view would stay as first read.
    await eventually(async () => {
      const { rows } = await observer.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO submit_keys%'`,
      );
      return rows[0].waiting === 2;
    }, 10_000);
    await blocker.query('COMMIT');
    const [x, y] = await answers;
    assert.deepEqual([x.statusCode, y.statusCode], [200, 200], `${x.body}\n${y.body}`);
    assert.deepEqual(x.json(), y.json());
    assert.deepEqual([x.headers['idempotent-replayed'], y.headers['idempotent-replayed']].sort(), ['true', undefined]);

    const { rows } = await blocker.query(`SELECT count FROM rate_windows WHERE account_id = $1 AND window_name = 'hour'`, [
      record.accountId,
    ]);
    // The endpoint's creation, each copy's own request, and the batch's five more once.
    assert.equal(rows[0].count, 1 + 2 + 5);
    const queued = await blocker.query('SELECT count(*)::int AS jobs FROM jobs WHERE endpoint_id = $1', [endpointId]);
    assert.equal(queued.rows[0].jobs, jobs.length);
  } finally {
    await blocker.end().catch(() => undefined);
    await observer.end().catch(() => undefined);
    for (const replica of replicas) await stopReplica(replica);
    await schema.drop();
  }
});
