// API keys: stored as given, listed oldest first, revoked once, and the first key made only once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aKey, anAccount } from './records.js';

const account = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(account);
});

test(`[${TEST_STORE}] the first key is inserted only into a deployment without keys, once among racing processes`, async () => {
  const stores = [suite.store, await suite.another(), await suite.another()];
  const keys = stores.map(() => aKey(account.id));
  const inserted = await Promise.all(stores.map((store, i) => store.insertFirstApiKey(keys[i]!)));
  assert.equal(inserted.filter(Boolean).length, 1, 'exactly one process inserted its key');
  const winner = keys[inserted.indexOf(true)]!;
  assert.deepEqual(await suite.store.listApiKeys(), [winner]);
  assert.equal(await suite.store.insertFirstApiKey(aKey(account.id)), false, 'a later start adds none');
});

test(`[${TEST_STORE}] a key reads back exactly as it was written`, async () => {
  const scoped = aKey(account.id, {
    permission: 'endpoints',
    endpointIds: ['ep-a', 'ep-b'],
    rateLimitExempt: true,
    expiresAt: '2031-01-01T00:00:00.000Z',
  });
  const plain = aKey(account.id, { permission: 'read' });
  await suite.store.insertApiKey(scoped);
  await suite.store.insertApiKey(plain);
  assert.deepEqual(await suite.store.getApiKey(scoped.id), scoped);
  assert.deepEqual(await suite.store.getApiKey(plain.id), plain);
  assert.equal(await suite.store.getApiKey('key-missing'), undefined);
});

test(`[${TEST_STORE}] keys are listed by creation time, then id`, async () => {
  const before = (await suite.store.listApiKeys()).map((k) => k.id);
  const late = aKey(account.id, { createdAt: '2039-01-01T00:00:00.000Z' });
  const tieB = aKey(account.id, { id: 'key-tie-b', createdAt: '2038-01-01T00:00:00.000Z' });
  const tieA = aKey(account.id, { id: 'key-tie-a', createdAt: '2038-01-01T00:00:00.000Z' });
  for (const key of [late, tieB, tieA]) await suite.store.insertApiKey(key);
  assert.deepEqual(
    (await suite.store.listApiKeys()).map((k) => k.id),
    [...before, 'key-tie-a', 'key-tie-b', late.id],
  );
});

test(`[${TEST_STORE}] revoking keeps the first revocation time and says whether the key exists`, async () => {
  const key = aKey(account.id);
  await suite.store.insertApiKey(key);
  assert.equal(await suite.store.revokeApiKey(key.id, '2030-06-01T00:00:00.000Z'), true);
  assert.equal(await suite.store.revokeApiKey(key.id, '2030-07-01T00:00:00.000Z'), true, 'revoking again is not an error');
  assert.equal((await suite.store.getApiKey(key.id))?.revokedAt, '2030-06-01T00:00:00.000Z');
  assert.equal(await suite.store.revokeApiKey('key-missing', '2030-06-01T00:00:00.000Z'), false);
});

test(`[${TEST_STORE}] a key id is unique, and a key needs an existing account`, async () => {
  const key = aKey(account.id);
  await suite.store.insertApiKey(key);
  await assert.rejects(suite.store.insertApiKey({ ...key, name: 'copy' }), {
    name: 'StoreConflictError',
    message: `api key ${key.id} already exists`,
  });
  await assert.rejects(suite.store.insertApiKey(aKey('acct-missing')));
  assert.equal((await suite.store.getApiKey(key.id))?.name, key.name, 'the first key is untouched');
});
