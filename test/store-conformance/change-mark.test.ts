// The change mark: a store that offers one moves it on every write, its own or another
// process's, so nothing read before a write is ever taken for current after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aKey, anAccount } from './records.js';

const account = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(account);
});

test(`[${TEST_STORE}] the change mark moves on a write by this store and by another process, and stays put otherwise`, async (t) => {
  const key = aKey(account.id);
  await suite.store.insertApiKey(key);
  const first = suite.store.changeMark();
  if (first === undefined) {
    t.diagnostic('this store offers no change mark: every read goes to the database');
    return;
  }
  await suite.store.getApiKey(key.id);
  assert.equal(suite.store.changeMark(), first, 'a read changes nothing');
  await suite.store.revokeApiKey(key.id, new Date().toISOString());
  const afterOwnWrite = suite.store.changeMark();
  assert.notEqual(afterOwnWrite, first, 'its own write moves the mark');
  const other = await suite.another();
  await other.insertApiKey(aKey(account.id));
  assert.notEqual(suite.store.changeMark(), afterOwnWrite, "another process's write moves the mark");
});
