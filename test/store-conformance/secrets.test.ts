// Per-account secrets: kept as sealed text, names unique within an account, every read scoped to
// the owner, rotation that changes the value and updatedAt only, and a delete that refuses while
// an endpoint or template of the account references the secret in its env.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aSecret, aTemplate, anAccount, anEndpoint } from './records.js';
import type { EndpointRecord, TemplateRecord } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/shared/conflicts.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

const withEnv = <T extends EndpointRecord | TemplateRecord>(record: T, env: Record<string, string>): T => ({
  ...record,
  spec: { ...record.spec, env },
});

test(`[${TEST_STORE}] a secret reads back exactly as written, to its own account only`, async () => {
  const secret = aSecret(owner.id);
  await suite.store.secrets.insert(secret);
  assert.deepEqual(await suite.store.secrets.get(owner.id, secret.name), secret);
  assert.equal(await suite.store.secrets.get(stranger.id, secret.name), undefined, "another account's name reads as unknown");
  assert.equal(await suite.store.secrets.get(owner.id, 'no_such_secret'), undefined);
});

test(`[${TEST_STORE}] a name is unique within its account and free in another`, async () => {
  await suite.store.secrets.insert(aSecret(owner.id, { name: 'hf_token' }));
  await assert.rejects(suite.store.secrets.insert(aSecret(owner.id, { name: 'hf_token' })), (error: unknown) => {
    assert.ok(error instanceof StoreConflictError);
    assert.equal(error.message, "a secret named 'hf_token' already exists in this account");
    return true;
  });
  await suite.store.secrets.insert(aSecret(stranger.id, { name: 'hf_token' }));
});

test(`[${TEST_STORE}] list is the account's secrets by name; getMany answers the names it knows`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  for (const name of ['zeta', 'Alpha', 'beta']) await suite.store.secrets.insert(aSecret(account.id, { name }));
  await suite.store.secrets.insert(aSecret(stranger.id, { name: 'gamma' }));
  assert.deepEqual(
    (await suite.store.secrets.list(account.id)).map((s) => s.name),
    ['Alpha', 'beta', 'zeta'],
  );
  assert.deepEqual(
    (await suite.store.secrets.getMany(account.id, ['zeta', 'gamma', 'beta'])).map((s) => s.name),
    ['beta', 'zeta'],
  );
  assert.deepEqual(await suite.store.secrets.getMany(account.id, []), []);
});

test(`[${TEST_STORE}] rotate replaces the sealed value and updatedAt, for the owner only`, async () => {
  const secret = aSecret(owner.id);
  await suite.store.secrets.insert(secret);
  const at = '2033-03-03T00:00:00.000Z';
  assert.equal(await suite.store.secrets.rotate(stranger.id, secret.name, 'gsb1.stranger', at), false);
  assert.equal(await suite.store.secrets.rotate(owner.id, 'no_such_secret', 'gsb1.x', at), false);
  assert.equal(await suite.store.secrets.rotate(owner.id, secret.name, 'gsb1.rotated', at), true);
  assert.deepEqual(await suite.store.secrets.get(owner.id, secret.name), { ...secret, sealedValue: 'gsb1.rotated', updatedAt: at });
});

test(`[${TEST_STORE}] delete removes an unreferenced secret of the owner; unknown and foreign names are missing`, async () => {
  const secret = aSecret(owner.id);
  await suite.store.secrets.insert(secret);
  assert.deepEqual(await suite.store.secrets.delete(stranger.id, secret.name), { outcome: 'missing' });
  assert.deepEqual(await suite.store.secrets.delete(owner.id, secret.name), { outcome: 'deleted' });
  assert.equal(await suite.store.secrets.get(owner.id, secret.name), undefined);
  assert.deepEqual(await suite.store.secrets.delete(owner.id, secret.name), { outcome: 'missing' });
});

test(`[${TEST_STORE}] a secret endpoints or templates reference is not deleted; the delete names them, oldest first`, async () => {
  const secret = aSecret(owner.id, { name: 'db.pass-1' });
  await suite.store.secrets.insert(secret);
  const first = withEnv(anEndpoint(owner.id), { DB: '{{RUNPOD_SECRET_db.pass-1}}' });
  const second = withEnv(anEndpoint(owner.id), {
    URL: 'postgres://u:{{ RUNPOD_SECRET_db.pass-1 }}@db/x',
    OTHER: '{{ RUNPOD_SECRET_other }}',
  });
  // Names that merely start with the secret's name, or text without the braces, are no references.
  const lookalike = withEnv(anEndpoint(owner.id), { DB: '{{ RUNPOD_SECRET_db.pass-10 }}', NOTE: 'RUNPOD_SECRET_db.pass-1' });
  const template = withEnv(aTemplate(owner.id), { DB: '{{  RUNPOD_SECRET_db.pass-1  }}' });
  const strangers = withEnv(anEndpoint(stranger.id), { DB: '{{ RUNPOD_SECRET_db.pass-1 }}' });
  for (const endpoint of [second, first, lookalike, strangers]) await suite.store.insertEndpoint(endpoint);
  await suite.store.insertTemplate(template);
  assert.deepEqual(await suite.store.secrets.delete(owner.id, secret.name), {
    outcome: 'in-use',
    endpointIds: [first.id, second.id],
    templateIds: [template.id],
  });
  assert.ok(await suite.store.secrets.get(owner.id, secret.name), 'still there');
  await suite.store.deleteEndpoint(owner.id, first.id);
  await suite.store.updateEndpoint({ ...withEnv(second, {}), revision: 2 }, 1);
  assert.deepEqual(await suite.store.secrets.delete(owner.id, secret.name), {
    outcome: 'in-use',
    endpointIds: [],
    templateIds: [template.id],
  });
  await suite.store.deleteTemplate(owner.id, template.id);
  assert.deepEqual(await suite.store.secrets.delete(owner.id, secret.name), { outcome: 'deleted' });
});

test(`[${TEST_STORE}] another connection sees a rotation the moment it is written`, async () => {
  const other = await suite.another();
  const secret = aSecret(owner.id);
  await suite.store.secrets.insert(secret);
  await suite.store.secrets.rotate(owner.id, secret.name, 'gsb1.new', secret.createdAt);
  assert.equal((await other.secrets.get(owner.id, secret.name))?.sealedValue, 'gsb1.new');
});
