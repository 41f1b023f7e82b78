// Registry credentials: kept as sealed text, names unique within an account, every read scoped
// to the owner, and a delete that refuses while endpoints pull with the credential and clears
// the references templates hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aRegistryAuth, aTemplate, anAccount, anEndpoint } from './records.js';
import type { EndpointRecord, TemplateRecord } from '../../src/store/store.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

const pulling = (endpoint: EndpointRecord, registry: string | null): EndpointRecord => ({
  ...endpoint,
  spec: { ...endpoint.spec, registry },
});
const naming = (template: TemplateRecord, registry: string | null): TemplateRecord => ({
  ...template,
  spec: { ...template.spec, registry },
});

test(`[${TEST_STORE}] a credential reads back exactly as written, to its own account only`, async () => {
  const auth = aRegistryAuth(owner.id);
  await suite.store.registryAuths.insert(auth);
  assert.deepEqual(await suite.store.registryAuths.get(owner.id, auth.id), auth);
  assert.equal(await suite.store.registryAuths.get(stranger.id, auth.id), undefined, "another account's id reads as unknown");
  assert.equal(await suite.store.registryAuths.get(owner.id, 'reg-missing'), undefined);
});

test(`[${TEST_STORE}] an account lists its own credentials by creation time then id`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const later = aRegistryAuth(account.id);
  const tieB = { ...aRegistryAuth(account.id), id: 'reg-tie-b', createdAt: '2020-01-01T00:00:00.000Z' };
  const tieA = { ...aRegistryAuth(account.id), id: 'reg-tie-a', createdAt: '2020-01-01T00:00:00.000Z' };
  for (const auth of [later, tieB, aRegistryAuth(stranger.id), tieA]) await suite.store.registryAuths.insert(auth);
  assert.deepEqual(
    (await suite.store.registryAuths.list(account.id)).map((a) => a.id),
    ['reg-tie-a', 'reg-tie-b', later.id],
  );
});

test(`[${TEST_STORE}] names are unique within an account, and ids everywhere`, async () => {
  const first = aRegistryAuth(owner.id, { name: 'dockerhub' });
  await suite.store.registryAuths.insert(first);
  await assert.rejects(suite.store.registryAuths.insert(aRegistryAuth(owner.id, { name: 'dockerhub' })), {
    name: 'StoreConflictError',
    message: `a registry credential named 'dockerhub' already exists in this account`,
  });
  await suite.store.registryAuths.insert(aRegistryAuth(stranger.id, { name: 'dockerhub' }));
  await assert.rejects(suite.store.registryAuths.insert({ ...aRegistryAuth(stranger.id), id: first.id }), {
    name: 'StoreConflictError',
    message: `registry credential ${first.id} already exists`,
  });
});

test(`[${TEST_STORE}] only the owner deletes a credential, once; its name is free again`, async () => {
  const auth = aRegistryAuth(owner.id, { name: 'to delete' });
  await suite.store.registryAuths.insert(auth);
  assert.deepEqual(await suite.store.registryAuths.delete(stranger.id, auth.id, auth.createdAt), { outcome: 'missing' });
  assert.ok(await suite.store.registryAuths.get(owner.id, auth.id));
  assert.deepEqual(await suite.store.registryAuths.delete(owner.id, auth.id, auth.createdAt), {
    outcome: 'deleted',
    clearedTemplateIds: [],
  });
  assert.equal(await suite.store.registryAuths.get(owner.id, auth.id), undefined);
  assert.deepEqual(await suite.store.registryAuths.delete(owner.id, auth.id, auth.createdAt), { outcome: 'missing' });
  await suite.store.registryAuths.insert(aRegistryAuth(owner.id, { name: 'to delete' }));
});

test(`[${TEST_STORE}] a credential endpoints pull with is not deleted; the delete names them, oldest first`, async () => {
  const auth = aRegistryAuth(owner.id);
  await suite.store.registryAuths.insert(auth);
  const first = pulling(anEndpoint(owner.id), auth.id);
  const second = pulling(anEndpoint(owner.id), auth.id);
  for (const endpoint of [second, first, pulling(anEndpoint(owner.id), null)]) await suite.store.insertEndpoint(endpoint);
  assert.deepEqual(await suite.store.registryAuths.delete(owner.id, auth.id, auth.createdAt), {
    outcome: 'in-use',
    endpointIds: [first.id, second.id],
  });
  assert.ok(await suite.store.registryAuths.get(owner.id, auth.id), 'still there');
  await suite.store.deleteEndpoint(owner.id, first.id);
  await suite.store.updateEndpoint({ ...pulling(second, null), revision: 2 }, 1);
  assert.equal((await suite.store.registryAuths.delete(owner.id, auth.id, auth.createdAt)).outcome, 'deleted');
});

test(`[${TEST_STORE}] deleting a credential clears it from the templates that named it, and only there`, async () => {
  const auth = aRegistryAuth(owner.id);
  const other = aRegistryAuth(owner.id);
  for (const a of [auth, other]) await suite.store.registryAuths.insert(a);
  const named = naming(aTemplate(owner.id), auth.id);
  const namedToo = naming(aTemplate(owner.id), auth.id);
  const namesOther = naming(aTemplate(owner.id), other.id);
  for (const t of [named, namedToo, namesOther]) await suite.store.insertTemplate(t);
  const at = '2032-02-02T00:00:00.000Z';
  assert.deepEqual(await suite.store.registryAuths.delete(owner.id, auth.id, at), {
    outcome: 'deleted',
    clearedTemplateIds: [named.id, namedToo.id].sort(),
  });
  assert.deepEqual(await suite.store.getTemplate(named.id), { ...naming(named, null), updatedAt: at });
  assert.deepEqual(await suite.store.getTemplate(namedToo.id), { ...naming(namedToo, null), updatedAt: at });
  assert.deepEqual(await suite.store.getTemplate(namesOther.id), namesOther, 'other references stay');
});

test(`[${TEST_STORE}] another connection sees a credential the moment it is written`, async () => {
  const other = await suite.another();
  const auth = aRegistryAuth(owner.id);
  await suite.store.registryAuths.insert(auth);
  assert.deepEqual(await other.registryAuths.get(owner.id, auth.id), auth);
});

test(`[${TEST_STORE}] a new sealed credential replaces the old one, for the owner only`, async () => {
  const auth = aRegistryAuth(owner.id);
  await suite.store.registryAuths.insert(auth);
  assert.equal(await suite.store.registryAuths.updateCredential(stranger.id, auth.id, 'gsb1.stranger'), false);
  assert.deepEqual(await suite.store.registryAuths.get(owner.id, auth.id), auth, 'unchanged by another account');
  assert.equal(await suite.store.registryAuths.updateCredential(owner.id, auth.id, 'gsb1.rotated'), true);
  assert.deepEqual(await suite.store.registryAuths.get(owner.id, auth.id), { ...auth, sealedCredential: 'gsb1.rotated' });
  assert.equal(await suite.store.registryAuths.updateCredential(owner.id, 'reg-missing', 'gsb1.x'), false);
});
