// Accounts and keys created by several processes at once, on whichever store the suite runs on:
// replicas starting together on an empty database, or `gantry keys create` beside a server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import { ApiKeyService } from '../src/services/api-keys.js';
import type { Store } from '../src/store/store.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-keys-'));
let t: TestStore;
const others: Store[] = [];

before(async () => {
  t = await openTestStore(dataDir);
  for (let i = 0; i < 3; i++) others.push(await t.reopen());
});
after(async () => {
  for (const store of others) await store.close();
  await t.store.close();
  await t.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(`[${TEST_STORE}] four processes making the first admin key at once make exactly one, and later starts make none`, async () => {
  const services = [t.store, ...others].map((store) => new ApiKeyService(store));
  const created = (await Promise.all(services.map((s) => s.ensureAdminKey()))).filter((key) => key !== undefined);
  assert.equal(created.length, 1, 'exactly one admin key');
  const keys = await t.store.listApiKeys();
  assert.deepEqual(
    keys.map((k) => k.id),
    [created[0]!.record.id],
  );
  assert.equal((await services[1]!.verify(created[0]!.token)).ok, true, 'the key works through another connection');
  assert.equal(await services[2]!.ensureAdminKey(), undefined);
});

test(`[${TEST_STORE}] keys created for a new account at once all land in that one account`, async () => {
  const services = [t.store, ...others].map((store) => new ApiKeyService(store));
  const created = await Promise.all(services.map((s) => s.create({ accountName: 'team-a', permission: 'read' })));
  const accountIds = new Set(created.map((key) => key.record.accountId));
  assert.equal(accountIds.size, 1, 'one account');
  assert.equal(created.filter((key) => key.accountCreated).length, 1, 'created once, found by the others');
  const account = await t.store.findAccountByName('team-a');
  assert.equal(account?.id, [...accountIds][0]);
});
