// Account SSH keys: kept in the order set, replaced as a whole, scoped to their account, and
// never a mix of two replaces that ran at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { anAccount } from './records.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

const AT = '2031-03-03T00:00:00.000Z';
const key = (n: number) => `ssh-ed25519 AAAA${n} key-${n}`;

test(`[${TEST_STORE}] an account without keys lists none`, async () => {
  assert.deepEqual(await suite.store.sshKeys.list(anAccount().id), []);
});

test(`[${TEST_STORE}] keys read back in the order they were set, to their own account only`, async () => {
  await suite.store.sshKeys.replace(owner.id, [key(3), key(1), key(2)], AT);
  assert.deepEqual(await suite.store.sshKeys.list(owner.id), [key(3), key(1), key(2)]);
  assert.deepEqual(await suite.store.sshKeys.list(stranger.id), []);
});

test(`[${TEST_STORE}] a replace drops every key it does not list, and [] clears them all`, async () => {
  await suite.store.sshKeys.replace(stranger.id, [key(10), key(11)], AT);
  await suite.store.sshKeys.replace(stranger.id, [key(12)], AT);
  assert.deepEqual(await suite.store.sshKeys.list(stranger.id), [key(12)]);
  await suite.store.sshKeys.replace(stranger.id, [], AT);
  assert.deepEqual(await suite.store.sshKeys.list(stranger.id), []);
});

test(`[${TEST_STORE}] replaces racing from two connections leave one of the sets whole`, async () => {
  const other = await suite.another();
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const left = [key(20), key(21), key(22)];
  const right = [key(30), key(31)];
  await Promise.all([suite.store.sshKeys.replace(account.id, left, AT), other.sshKeys.replace(account.id, right, AT)]);
  const kept = await suite.store.sshKeys.list(account.id);
  assert.ok(JSON.stringify(kept) === JSON.stringify(left) || JSON.stringify(kept) === JSON.stringify(right), JSON.stringify(kept));
  assert.deepEqual(await other.sshKeys.list(account.id), kept, 'both connections see the same set');
});
