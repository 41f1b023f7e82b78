// Accounts: created once by name, however many processes ask at the same time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { anAccount } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] an account is found by id and by name after it is created`, async () => {
  const account = anAccount();
  assert.deepEqual(await suite.store.ensureAccount(account), { account, created: true });
  assert.deepEqual(await suite.store.getAccount(account.id), account);
  assert.deepEqual(await suite.store.findAccountByName(account.name), account);
  assert.equal(await suite.store.getAccount('acct-missing'), undefined);
  assert.equal(await suite.store.findAccountByName('nobody'), undefined);
});

test(`[${TEST_STORE}] ensuring an account whose name exists answers the existing one`, async () => {
  const first = anAccount('shared-name');
  await suite.store.ensureAccount(first);
  const again = await suite.store.ensureAccount(anAccount('shared-name'));
  assert.deepEqual(again, { account: first, created: false });
});

test(`[${TEST_STORE}] processes ensuring the same account at once all get one row`, async () => {
  const stores = [suite.store, await suite.another(), await suite.another()];
  const results = await Promise.all(stores.map((store) => store.ensureAccount(anAccount('racing'))));
  assert.equal(results.filter((r) => r.created).length, 1, 'created exactly once');
  assert.equal(new Set(results.map((r) => r.account.id)).size, 1, 'every process answers the same account');
});
