// The API key mark: a store that offers one moves it on every write to a key, its own or another
// process's, so no key read before such a write is ever taken for current after it; writes to
// anything else leave it alone, so a busy queue does not drop the keys it keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aKey, anAccount, anEndpoint } from './records.js';

const account = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(account);
});

test(`[${TEST_STORE}] the API key mark moves on a key write by this store and by another process, and stays put otherwise`, async (t) => {
  const key = aKey(account.id);
  await suite.store.insertApiKey(key);
  const first = suite.store.apiKeysMark();
  if (first === undefined) {
    t.diagnostic('this store offers no API key mark: every key read goes to the database');
    return;
  }
  await suite.store.getApiKey(key.id);
  assert.equal(suite.store.apiKeysMark(), first, 'a read changes nothing');
  await suite.store.insertEndpoint(anEndpoint(account.id));
  await suite.store.ensureAccount(anAccount());
  assert.equal(suite.store.apiKeysMark(), first, 'writes to other records change nothing');
  await suite.store.revokeApiKey(key.id, new Date().toISOString());
  const afterOwnWrite = suite.store.apiKeysMark();
  assert.notEqual(afterOwnWrite, first, 'its own key write moves the mark');
  const other = await suite.another();
  const othersKey = aKey(account.id);
  await other.insertApiKey(othersKey);
  const afterOtherInsert = suite.store.apiKeysMark();
  assert.notEqual(afterOtherInsert, afterOwnWrite, "another process's key insert moves the mark");
  await other.revokeApiKey(othersKey.id, new Date().toISOString());
  assert.notEqual(suite.store.apiKeysMark(), afterOtherInsert, "another process's revocation moves the mark");
});
