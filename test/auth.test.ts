// Authentication, key permissions and per-account rate limits over the management API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseList, type Item } from 'structured-headers';
import { problem, startHarness, type Harness } from './support/harness.js';
import { MemoryRateLimiter } from '../src/cluster/rate-limiter.js';
import { assertGivesBack, clearOfWindowEnd } from './support/rate-windows.js';

let h: Harness;
before(async () => {
  h = await startHarness({ rateLimitMinute: '5' });
});
after(() => h.close());

const get = (headers: Record<string, string>) => h.app.inject({ method: 'GET', url: '/v2/serverless', headers });

describe('authentication', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['no authorization header', {}, 'missing bearer token'],
    ['an empty header', { authorization: '' }, 'missing bearer token'],
    ['a scheme other than Bearer', { authorization: 'Basic Zm9vOmJhcg==' }, 'the authorization header must be "Bearer <api key>"'],
    [
      'a bare key without Bearer',
      { authorization: 'gantry_aaaaaaaaaaaa_' + 'a'.repeat(43) },
      'the authorization header must be "Bearer <api key>"',
    ],
    ['a malformed key', { authorization: 'Bearer not-a-key' }, 'the API key is malformed'],
    ['an unknown key', { authorization: 'Bearer gantry_aaaaaaaaaaaa_' + 'a'.repeat(43) }, 'the API key is not valid'],
  ];
  for (const [name, headers, detail] of cases) {
    test(`${name} answers 401 problem+json without rate-limit headers`, async () => {
      const res = await get(headers);
      assert.equal(res.statusCode, 401);
      assert.deepEqual(problem(res), { title: 'Unauthorized', status: 401, detail });
      assert.equal(res.headers.ratelimit, undefined);
    });
  }

  test('a right id with a wrong secret is refused', async () => {
    // An account of its own: the harness's is allowed 5 requests a minute, which later tests count on.
    const key = await h.newKey({ accountName: 'forged' });
    const forged = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.equal((await get({ authorization: `Bearer ${forged}` })).statusCode, 401);
    assert.equal((await get({ authorization: `Bearer ${key}` })).statusCode, 200);
    // Once the right secret has been seen, the id alone still opens nothing.
    assert.equal((await get({ authorization: `Bearer ${forged}` })).statusCode, 401);
  });

  test('a key used a moment before it is revoked is refused at once', async () => {
    const token = await h.newKey({ accountName: 'revoked-in-use' });
    assert.equal((await get({ authorization: `Bearer ${token}` })).statusCode, 200);
    assert.equal(await h.services.apiKeys.revoke(token.split('_')[1]!), true);
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.statusCode, 401);
    assert.equal(problem(res).detail, 'the API key has been revoked');
  });

  test('a revoked key is refused', async () => {
    const token = await h.newKey();
    const id = token.split('_')[1]!;
    assert.equal(await h.services.apiKeys.revoke(id), true);
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.statusCode, 401);
    assert.equal(problem(res).detail, 'the API key has been revoked');
  });

  test('an expired key is refused, one not yet expired works', async () => {
    const expired = await h.newKey({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const res = await get({ authorization: `Bearer ${expired}` });
    assert.equal(res.statusCode, 401);
    assert.equal(problem(res).detail, 'the API key has expired');
    const valid = await h.newKey({ expiresAt: new Date(Date.now() + 60_000).toISOString() });
    assert.equal((await get({ authorization: `Bearer ${valid}` })).statusCode, 200);
  });

  test('only a hash of the key is stored', async () => {
    const token = await h.newKey();
    const id = token.split('_')[1]!;
    const record = await h.services.store.getApiKey(id);
    assert.ok(record);
    // The secret is everything after the id; base64url secrets may themselves contain '_'.
    const secret = token.slice(`gantry_${id}_`.length);
    assert.equal(secret.length, 43);
    assert.ok(!JSON.stringify(record).includes(secret));
    assert.match(record.secretHash, /^[0-9a-f]{64}$/);
  });
});

describe('permissions', () => {
  test('a read-only key may read but not write', async () => {
    const key = await h.newKey({ permission: 'read' });
    assert.equal((await h.call('GET', '/v2/serverless', undefined, key)).statusCode, 200);
    const res = await h.call('POST', '/v2/serverless', { name: 'x' }, key);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(problem(res), { title: 'Forbidden', status: 403, detail: 'this API key is read-only' });
  });

  test('a key restricted to endpoints may not use the management API', async () => {
    const key = await h.newKey({ permission: 'endpoints', endpointIds: ['abc'] });
    const res = await h.call('GET', '/v2/serverless', undefined, key);
    assert.equal(res.statusCode, 403);
    assert.equal(problem(res).detail, 'this API key may only use the queues of its endpoints');
  });
});

describe('rate limits', () => {
  const windowsOf = (header: string) =>
    parseList(header).map((member) => {
      const [name, params] = member as Item;
      return [name, Object.fromEntries(params)] as const;
    });

  test('every authenticated response carries RateLimit and RateLimit-Policy', async () => {
    const key = await h.newKey({ accountName: 'headers' });
    const res = await h.call('GET', '/v2/serverless', undefined, key);
    const limit = windowsOf(String(res.headers.ratelimit));
    assert.deepEqual(
      limit.map(([name]) => name),
      ['minute', 'hour', 'day'],
    );
    assert.equal(limit[0]![1].r, 4);
    assert.ok(Number(limit[0]![1].t) >= 1 && Number(limit[0]![1].t) <= 60);
    assert.deepEqual(windowsOf(String(res.headers['ratelimit-policy'])), [
      ['minute', { q: 5, w: 60 }],
      ['hour', { q: 200000, w: 3600 }],
      ['day', { q: 2000000, w: 86400 }],
    ]);
    const failed = await h.call('GET', '/v2/serverless/nope', undefined, key);
    assert.equal(failed.statusCode, 404);
    assert.ok(failed.headers.ratelimit, 'errors carry the headers too');
  });

  test('the quota is per account, and the 429 names the window with Retry-After', async () => {
    await clearOfWindowEnd(60, 5);
    const key = await h.newKey({ accountName: 'busy' });
    const sibling = await h.newKey({ accountName: 'busy' });
    for (let i = 0; i < 3; i++) assert.equal((await h.call('GET', '/v2/serverless', undefined, key)).statusCode, 200);
    for (let i = 0; i < 2; i++) assert.equal((await h.call('GET', '/v2/serverless', undefined, sibling)).statusCode, 200);
    const res = await h.call('GET', '/v2/serverless', undefined, key);
    assert.equal(res.statusCode, 429);
    const body = problem(res);
    assert.match(body.detail, /^rate limit exceeded: 5 requests per minute; the minute window resets in \d+ s$/);
    assert.match(String(res.headers['retry-after']), /^\d+$/);
    assert.equal(windowsOf(String(res.headers.ratelimit))[0]![1].r, 0);
    assert.ok(res.headers['ratelimit-policy']);
    const fresh = await h.newKey({ accountName: 'idle' });
    assert.equal((await h.call('GET', '/v2/serverless', undefined, fresh)).statusCode, 200, 'other accounts are unaffected');
  });

  test('exempt keys get no headers and no limit', async () => {
    const key = await h.newKey({ accountName: 'exempt', rateLimitExempt: true });
    for (let i = 0; i < 8; i++) {
      const res = await h.call('GET', '/v2/serverless', undefined, key);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal(res.headers['ratelimit-policy'], undefined);
    }
  });

  test('windows reset at their boundaries and the longest exhausted one is reported', async () => {
    const limiter = new MemoryRateLimiter({ minute: 100, hour: 2, day: 1000 });
    const t0 = Date.UTC(2026, 0, 1, 10, 59, 30);
    assert.equal((await limiter.consume('a', t0)).allowed, true);
    assert.equal((await limiter.consume('a', t0 + 1000)).allowed, true);
    const refused = await limiter.consume('a', t0 + 2000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.exceeded?.name, 'hour');
    assert.equal(refused.exceeded?.resetSeconds, 28);
    const nextHour = await limiter.consume('a', t0 + 30_000);
    assert.equal(nextHour.allowed, true);
    assert.equal(nextHour.windows.find((w) => w.name === 'hour')?.remaining, 1);
    assert.equal(nextHour.windows.find((w) => w.name === 'day')?.remaining, 997, 'the day window kept counting');
  });

  test('a call that counts as several requests is counted whole or not at all', async () => {
    const limiter = new MemoryRateLimiter({ minute: 10, hour: 1000, day: 1000 });
    const now = Date.UTC(2026, 0, 1, 10, 0, 0);
    assert.equal((await limiter.consume('a', now, 7)).windows[0]!.remaining, 3);
    const refused = await limiter.consume('a', now, 4);
    assert.equal(refused.allowed, false);
    assert.equal(refused.exceeded?.name, 'minute');
    assert.equal(refused.exceeded?.remaining, 3, 'a refused call counts nothing');
    assert.equal((await limiter.consume('a', now, 3)).allowed, true, 'what fits is still admitted');
    assert.equal((await limiter.consume('a', now)).allowed, false);
  });

  test('requests given back return to the windows they were counted in, if those have not reset', async () => {
    await assertGivesBack(new MemoryRateLimiter({ minute: 10, hour: 1000, day: 1000 }), 'a');
  });
});
