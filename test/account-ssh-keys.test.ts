// The account's SSH public keys over REST v2: GET lists them, PUT replaces the whole set, each
// entry checked as an authorized_keys line whose base64 key names the type written before it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem, startHarness, type Harness } from './support/harness.js';
import { anSshKey, keyBlob } from './support/ssh-keys.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('a new account has no keys; PUT replaces the set and GET reads it back in order', async () => {
  const key = await h.newKey({ accountName: 'ssh-fresh' });
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [] });
  const keys = [anSshKey('me@laptop'), anSshKey(), anSshKey('ci key with spaces')];
  const put = await h.call('PUT', '/v2/account/ssh-keys', { keys }, key);
  assert.deepEqual([put.statusCode, put.json()], [200, { keys }]);
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys });
  const replaced = [keys[2]!];
  assert.deepEqual((await h.call('PUT', '/v2/account/ssh-keys', { keys: replaced }, key)).json(), { keys: replaced });
  assert.deepEqual((await h.call('PUT', '/v2/account/ssh-keys', { keys: [] }, key)).json(), { keys: [] });
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [] });
});

test('keys belong to their account: another account neither sees nor replaces them', async () => {
  const mine = await h.newKey({ accountName: 'ssh-mine' });
  const theirs = await h.newKey({ accountName: 'ssh-theirs' });
  const keys = [anSshKey('mine')];
  await h.call('PUT', '/v2/account/ssh-keys', { keys }, mine);
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, theirs)).json(), { keys: [] });
  await h.call('PUT', '/v2/account/ssh-keys', { keys: [] }, theirs);
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, mine)).json(), { keys });
});

test('a key listed twice is kept once, and stray whitespace around a line is dropped', async () => {
  const key = await h.newKey({ accountName: 'ssh-repeats' });
  const line = anSshKey('twice');
  const res = await h.call('PUT', '/v2/account/ssh-keys', { keys: [line, `${line.replace(' twice', ' again')}\t`] }, key);
  assert.deepEqual(res.json(), { keys: [line] });
});

test('a line that is not <type> <key> [comment] answers 422 naming each entry', async () => {
  const res = await h.call('PUT', '/v2/account/ssh-keys', { keys: [anSshKey(), 'not a key', 'ssh-ed25519'] });
  const body = problem(res);
  assert.equal(res.statusCode, 422);
  assert.deepEqual(
    body.errors?.map((line) => line.split(':')[0]),
    ['keys[1]', 'keys[2]'],
  );
  assert.equal(problem(await h.call('PUT', '/v2/account/ssh-keys', { keys: [], extra: 1 })).status, 422);
});

test('a key whose base64 part is not a key of the type written answers 400 with field errors, changing nothing', async () => {
  const key = await h.newKey({ accountName: 'ssh-bad-blob' });
  const kept = [anSshKey('kept')];
  await h.call('PUT', '/v2/account/ssh-keys', { keys: kept }, key);
  const res = await h.call(
    'PUT',
    '/v2/account/ssh-keys',
    {
      keys: [anSshKey(), `ssh-rsa ${keyBlob()} wrong-type`, 'ssh-ed25519 !!!notbase64', 'ssh-ed25519 AAAA truncated'],
    },
    key,
  );
  assert.deepEqual(problem(res), {
    title: 'Bad Request',
    status: 400,
    detail: 'some keys are not SSH public keys (authorized_keys lines)',
    errors: [
      'keys[1]: the base64 key is of type ssh-ed25519, not ssh-rsa',
      'keys[2]: the key after the type is not base64',
      'keys[3]: the base64 key is truncated: it does not hold a key type',
    ],
  });
  assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: kept });
});

test('a read-only key reads the keys but cannot replace them', async () => {
  const readOnly = await h.newKey({ permission: 'read' });
  assert.equal((await h.call('GET', '/v2/account/ssh-keys', undefined, readOnly)).statusCode, 200);
  assert.equal((await h.call('PUT', '/v2/account/ssh-keys', { keys: [] }, readOnly)).statusCode, 403);
  assert.equal((await h.app.inject({ method: 'GET', url: '/v2/account/ssh-keys' })).statusCode, 401);
});
