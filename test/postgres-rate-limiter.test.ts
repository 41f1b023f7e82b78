// The shared rate-limit windows on PostgreSQL under concurrent requests from one account, as
// several replicas (here: several stores) count them: none fails, every admitted one counts, and
// together they admit exactly the quota.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { PostgresRateLimiter } from '../src/cluster/postgres-rate-limiter.js';
import { assertGivesBack } from './support/rate-windows.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (rate limiter)`);
const skip = NO_POSTGRES ?? false;

let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
const stores: PostgresStore[] = [];

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  for (let i = 0; i < 3; i++) stores.push(await PostgresStore.open({ url: schema.url, max: 8 }));
});
after(async () => {
  for (const store of stores) await store.close();
  await schema?.drop();
});

test('hundreds of concurrent requests of one account over three replicas all get an answer and all count', { skip }, async () => {
  const quotas = { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 };
  const limiters = stores.map((store) => new PostgresRateLimiter(store.batchPool, quotas));
  const now = Date.now();
  const requests = 600;
  const results = await Promise.allSettled(Array.from({ length: requests }, (_, i) => limiters[i % 3]!.consume('acct-busy', now)));
  const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
  assert.deepEqual(failures, [], 'no request fails (a lock-order deadlock would)');
  const after = await limiters[0]!.consume('acct-busy', now);
  for (const window of after.windows) assert.equal(window.remaining, 1_000_000 - requests - 1, `${window.name} counted every request`);
});

test('a quota is enforced across replicas: together they admit exactly the quota', { skip }, async () => {
  const quotas = { minute: 50, hour: 1000, day: 1000 };
  const limiters = stores.map((store) => new PostgresRateLimiter(store.batchPool, quotas));
  const now = Date.now();
  const decisions = await Promise.all(Array.from({ length: 150 }, (_, i) => limiters[i % 3]!.consume('acct-quota', now)));
  // Each replica alone would admit 50; a batch reads the windows only once it holds their locks.
  assert.equal(decisions.filter((d) => d.allowed).length, 50);
  const refused = decisions.find((d) => !d.allowed)!;
  assert.equal(refused.exceeded?.name, 'minute');
  assert.equal(refused.exceeded?.remaining, 0);
});

test('a burst on one replica is admitted in arrival order, each request seeing its own count', { skip }, async () => {
  const quotas = { minute: 50, hour: 1000, day: 1000 };
  const limiter = new PostgresRateLimiter(stores[0]!.batchPool, quotas);
  const now = Date.now();
  const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.consume('acct-burst', now)));
  assert.deepEqual(
    decisions.map((d) => d.allowed),
    Array.from({ length: 60 }, (_, i) => i < 50),
  );
  const minuteLeft = decisions.map((d) => d.windows.find((w) => w.name === 'minute')!.remaining);
  assert.deepEqual(
    minuteLeft,
    Array.from({ length: 60 }, (_, i) => Math.max(0, 49 - i)),
  );
  assert.deepEqual(
    decisions.slice(50).map((d) => d.exceeded?.name),
    Array(10).fill('minute'),
  );
  const hourLeft = decisions[59]!.windows.find((w) => w.name === 'hour')!.remaining;
  assert.equal(hourLeft, 950, 'refused requests are not counted');
});

test(
  'calls that count as several requests, from three replicas at once: each admitted whole, together within the quota',
  { skip },
  async () => {
    const quotas = { minute: 100, hour: 1000, day: 1000 };
    const limiters = stores.map((store) => new PostgresRateLimiter(store.batchPool, quotas));
    const now = Date.now();
    // 7 + 1 requests per pair of calls, 30 pairs: 240 asked for, 100 may be admitted.
    const calls = Array.from({ length: 60 }, (_, i) => ({ requests: i % 2 === 0 ? 7 : 1, limiter: limiters[i % 3]! }));
    const decisions = await Promise.all(calls.map(({ requests, limiter }) => limiter.consume('acct-mixed', now, requests)));
    const admitted = calls.reduce((sum, call, i) => sum + (decisions[i]!.allowed ? call.requests : 0), 0);
    const after = await limiters[0]!.consume('acct-mixed', now, 1);
    const counted = 100 - after.windows.find((w) => w.name === 'minute')!.remaining - (after.allowed ? 1 : 0);
    assert.equal(counted, admitted, 'the window counts exactly the requests of the admitted calls, none of the refused');
    assert.ok(admitted <= 100 && admitted >= 100 - 6, `the quota is filled, not exceeded (${admitted})`);
    const refusedSeven = decisions.find((d, i) => !d.allowed && calls[i]!.requests === 7);
    assert.equal(refusedSeven?.exceeded?.name, 'minute');
  },
);

test('requests given back return to the shared windows they were counted in, if those have not reset', { skip }, async () => {
  await assertGivesBack(new PostgresRateLimiter(stores[1]!.batchPool, { minute: 10, hour: 1000, day: 1000 }), 'acct-give-back');
});

test('counts and give-backs of one account from three replicas at once never deadlock, and add up', { skip }, async () => {
  const quotas = { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 };
  const limiters = stores.map((store) => new PostgresRateLimiter(store.batchPool, quotas));
  const now = Date.now();
  // Calls of three requests (a statement each) and give-backs of two, interleaved over the replicas.
  const results = await Promise.allSettled(
    Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? limiters[i % 3]!.consume('acct-give-back-race', now, 3) : limiters[i % 3]!.giveBack('acct-give-back-race', now, 2),
    ),
  );
  const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
  assert.deepEqual(failures, [], 'none fails (a lock-order deadlock would)');
  const after = await limiters[0]!.consume('acct-give-back-race', now);
  const minute = after.windows.find((w) => w.name === 'minute')!;
  // Each give-back that ran after its account's first count took back 2; none goes below nothing.
  const counted = 1_000_000 - minute.remaining - 1;
  assert.ok(counted >= 150 * 3 - 150 * 2 && counted <= 150 * 3, `counted ${counted}`);
});
