// Failed authentications are limited per client address: past the limit within a minute the
// address gets 429 problem+json with Retry-After, other addresses are unaffected, and the
// memory it takes is bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem, startHarness, type Harness } from './support/harness.js';
import { FailedAuthLimiter } from '../src/http/failed-auth-limiter.js';

const LIMIT = 5;
let h: Harness;
before(async () => {
  h = await startHarness({ authFailureLimit: String(LIMIT) });
});
after(() => h.close());

const from = (remoteAddress: string, authorization: string, url = '/v2/serverless') =>
  h.app.inject({ method: 'GET', url, remoteAddress, headers: { authorization } });

describe('failed authentications per address', () => {
  test(`after ${LIMIT} failures in a minute an address gets 429 with Retry-After, even with a good key`, async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await from('192.0.2.10', 'Bearer wrong')).statusCode, 401);
    const refused = await from('192.0.2.10', 'Bearer wrong');
    assert.equal(refused.statusCode, 429);
    assert.match(problem(refused).detail, /failed authentications/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.equal((await from('192.0.2.10', `Bearer ${h.adminKey}`)).statusCode, 429);
    assert.equal((await from('192.0.2.11', `Bearer ${h.adminKey}`)).statusCode, 200, 'another address is not affected');
  });

  test('successful calls do not count', async () => {
    for (let i = 0; i < LIMIT * 3; i++) assert.equal((await from('192.0.2.20', `Bearer ${h.adminKey}`)).statusCode, 200);
  });

  test('failures on /graphql and /metrics count too, and a refused address is refused there as well', async () => {
    const graphql = (remoteAddress: string, authorization: string) =>
      h.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers: { authorization }, payload: { query: '{ myself { id } }' } });
    const metrics = (remoteAddress: string, authorization: string) =>
      h.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: { authorization } });
    for (let i = 0; i < LIMIT; i++) {
      const tried = i % 2 === 0 ? await graphql('192.0.2.40', 'Bearer wrong') : await metrics('192.0.2.40', 'Bearer wrong');
      assert.notEqual(tried.statusCode, 429, `attempt ${i + 1} is answered as a failure, not yet refused`);
    }
    assert.equal((await from('192.0.2.40', `Bearer ${h.adminKey}`)).statusCode, 429, 'counted against the address');
    const refused = await graphql('192.0.2.40', `Bearer ${h.adminKey}`);
    assert.equal(refused.json().errors?.[0]?.extensions?.code, 'RATE_LIMITED', refused.body);
    assert.equal((await metrics('192.0.2.40', `Bearer ${h.adminKey}`)).statusCode, 429);
  });

  test('worker credential failures count too', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await from('192.0.2.30', 'not-a-credential', '/v2/abc/ping/w1')).statusCode, 401);
    assert.equal((await from('192.0.2.30', 'not-a-credential', '/v2/abc/ping/w1')).statusCode, 429);
  });
});

describe('the limiter itself', () => {
  test('a window expires after a minute', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(2, () => now);
    limiter.recordFailure('a');
    limiter.recordFailure('a');
    assert.throws(() => limiter.check('a'), /retry in 60 s/);
    now = 59_000;
    assert.throws(() => limiter.check('a'), /retry in 1 s/);
    now = 60_000;
    assert.doesNotThrow(() => limiter.check('a'));
  });

  test('the map of addresses stays bounded', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(3, () => now);
    for (let i = 0; i < 25_000; i++) {
      now = i;
      limiter.recordFailure(`addr-${i}`);
    }
    assert.ok(limiter.size <= 10_000, String(limiter.size));
  });
});

describe('behind a trusted reverse proxy (--trust-proxy)', () => {
  let behind: Harness;
  before(async () => {
    behind = await startHarness({ authFailureLimit: String(LIMIT), trustProxy: '10.0.0.0/8' });
  });
  after(() => behind.close());
  const via = (remoteAddress: string, forwardedFor: string, authorization: string) =>
    behind.app.inject({ method: 'GET', url: '/v2/serverless', remoteAddress, headers: { authorization, 'x-forwarded-for': forwardedFor } });

  test("failures count against the client the proxy names, so the proxy's other clients still get in", async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await via('10.1.2.3', '203.0.113.5', 'Bearer wrong')).statusCode, 401);
    assert.equal((await via('10.1.2.3', '203.0.113.5', `Bearer ${behind.adminKey}`)).statusCode, 429);
    assert.equal((await via('10.1.2.3', '203.0.113.6', `Bearer ${behind.adminKey}`)).statusCode, 200, 'another client, same proxy');
  });

  test('X-Forwarded-For from an address not trusted is not believed', async () => {
    for (let i = 0; i < LIMIT; i++) {
      assert.equal((await via('198.51.100.7', `203.0.113.${100 + i}`, 'Bearer wrong')).statusCode, 401);
    }
    assert.equal((await via('198.51.100.7', '203.0.113.200', `Bearer ${behind.adminKey}`)).statusCode, 429);
  });
});
