// The account's API keys over REST: listed without secrets, created with the secret shown once and
// never more than the caller has, revoked at once (the next request with the key is a 401, even
// right after it was used and its record cached), and another account's keys out of reach.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './support/harness.js';
import { problem } from './support/harness.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const idOf = (token: string) => token.split('_')[1]!;

test('a full key creates a key whose secret is in that answer only, and the list shows it without secrets', async () => {
  const created = await h.call('POST', '/v2/account/keys', { name: 'ci deploys', permission: 'read' });
  assert.equal(created.statusCode, 201, created.body);
  const key = created.json();
  assert.match(key.key, /^gantry_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  assert.deepEqual([key.name, key.permission, key.status, key.revokedAt], ['ci deploys', 'read', 'ACTIVE', null]);
  assert.equal((await h.call('GET', '/v2/account/key', undefined, key.key)).json().permission, 'read', 'the new key works');

  const listed = await h.call('GET', '/v2/account/keys');
  assert.equal(listed.statusCode, 200);
  const names = listed.json().keys.map((k: any) => k.name);
  assert.ok(names.includes('admin') && names.includes('ci deploys'), names.join());
  assert.ok(!listed.body.includes(key.key.slice('gantry_'.length + 13)), 'no secret in the list');
  assert.ok(listed.json().keys.every((k: any) => k.key === undefined && k.secretHash === undefined));
});

test('a revoked key answers 401 on the very next request, even one just used; revoking it again changes nothing', async () => {
  const token = (await h.call('POST', '/v2/account/keys', { name: 'short-lived' })).json().key;
  for (let i = 0; i < 3; i++) assert.equal((await h.call('GET', '/v2/serverless', undefined, token)).statusCode, 200);
  const revoked = await h.call('DELETE', `/v2/account/keys/${idOf(token)}`);
  assert.equal(revoked.statusCode, 200, revoked.body);
  assert.equal(revoked.json().status, 'REVOKED');
  assert.equal((await h.call('GET', '/v2/serverless', undefined, token)).statusCode, 401);
  const again = await h.call('DELETE', `/v2/account/keys/${idOf(token)}`);
  assert.equal(again.statusCode, 200);
  assert.equal(again.json().revokedAt, revoked.json().revokedAt);
  const listed = (await h.call('GET', '/v2/account/keys')).json().keys.find((k: any) => k.id === idOf(token));
  assert.equal(listed.status, 'REVOKED');
});

test('a key may revoke itself: that call succeeds and the key is refused from then on', async () => {
  const token = (await h.call('POST', '/v2/account/keys', { name: 'self' })).json().key;
  assert.equal((await h.call('DELETE', `/v2/account/keys/${idOf(token)}`, undefined, token)).statusCode, 200);
  assert.equal((await h.call('GET', '/v2/account/keys', undefined, token)).statusCode, 401);
});

test('a read-only key lists keys but may neither create nor revoke one (403)', async () => {
  const read = await h.newKey({ name: 'reader', permission: 'read' });
  assert.equal((await h.call('GET', '/v2/account/keys', undefined, read)).statusCode, 200);
  const create = await h.call('POST', '/v2/account/keys', { name: 'escalate', permission: 'full' }, read);
  assert.equal(create.statusCode, 403);
  assert.equal(problem(create).status, 403);
  const revoke = await h.call('DELETE', `/v2/account/keys/${idOf(h.adminKey)}`, undefined, read);
  assert.equal(revoke.statusCode, 403);
  assert.equal((await h.call('GET', '/v2/account/key')).statusCode, 200, 'the admin key still works');
});

test('a key limited to endpoints cannot reach the keys at all', async () => {
  const ep = await h.call('POST', '/v2/serverless', queueEndpointBody('keys-ep'));
  assert.equal(ep.statusCode, 201, ep.body);
  const limited = await h.newKey({ permission: 'endpoints', endpointIds: [ep.json().id] });
  assert.equal((await h.call('GET', '/v2/account/keys', undefined, limited)).statusCode, 403);
  assert.equal(
    (await h.call('POST', '/v2/account/keys', { name: 'x', permission: 'endpoints', endpointIds: [ep.json().id] }, limited)).statusCode,
    403,
  );

  const scoped = await h.call('POST', '/v2/account/keys', { name: 'queue only', permission: 'endpoints', endpointIds: [ep.json().id] });
  assert.equal(scoped.statusCode, 201, scoped.body);
  assert.deepEqual(scoped.json().endpointIds, [ep.json().id]);
});

test('a key cannot make one with more than it has: no outliving its expiry, no rate-limit exemption it lacks', async () => {
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const expiring = await h.newKey({ name: 'expiring', expiresAt: soon });
  const forever = await h.call('POST', '/v2/account/keys', { name: 'forever' }, expiring);
  assert.equal(forever.statusCode, 403);
  assert.match(problem(forever).detail, /expire/);
  const later = await h.call(
    'POST',
    '/v2/account/keys',
    { name: 'later', expiresAt: new Date(Date.now() + 7_200_000).toISOString() },
    expiring,
  );
  assert.equal(later.statusCode, 403);
  const within = await h.call('POST', '/v2/account/keys', { name: 'within', expiresAt: soon }, expiring);
  assert.equal(within.statusCode, 201, within.body);
  const exempt = await h.call('POST', '/v2/account/keys', { name: 'exempt', rateLimitExempt: true });
  assert.equal(exempt.statusCode, 403);
});

test('bad input is a problem naming the field, and nothing is created', async () => {
  const before = (await h.call('GET', '/v2/account/keys')).json().keys.length;
  const cases: [unknown, number, RegExp][] = [
    [{}, 422, /name/],
    [{ name: 'x', permission: 'admin' }, 422, /permission/],
    [{ name: 'x', permission: 'endpoints' }, 422, /endpointIds/],
    [{ name: 'x', permission: 'endpoints', endpointIds: ['nope'] }, 422, /endpointIds: no endpoint nope/],
    [{ name: 'x', permission: 'read', endpointIds: ['nope'] }, 422, /endpointIds/],
    [{ name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, 422, /expiresAt/],
    [{ name: 'x', secret: 'mine' }, 422, /secret/],
  ];
  for (const [body, status, field] of cases) {
    const answer = await h.call('POST', '/v2/account/keys', body);
    assert.equal(answer.statusCode, status, `${JSON.stringify(body)}: ${answer.body}`);
    assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.match(JSON.stringify(problem(answer)), field);
  }
  assert.equal((await h.call('GET', '/v2/account/keys')).json().keys.length, before);
});

test("another account neither sees nor revokes the account's keys", async () => {
  const other = (await h.services.apiKeys.create({ name: 'theirs', accountName: 'someone-else' })).token;
  const theirList = (await h.call('GET', '/v2/account/keys', undefined, other)).json().keys;
  assert.deepEqual(
    theirList.map((k: any) => k.name),
    ['theirs'],
  );
  const revoke = await h.call('DELETE', `/v2/account/keys/${idOf(h.adminKey)}`, undefined, other);
  assert.equal(revoke.statusCode, 404);
  assert.equal((await h.call('GET', '/v2/account/key')).statusCode, 200, 'the admin key still works');
  const unknown = await h.call('DELETE', '/v2/account/keys/nosuchkey000');
  assert.equal(unknown.statusCode, 404);
});
