// Templates: names unique within an account, a shared (community) slice of public ones, and
// deletes limited to the owner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aTemplate, anAccount } from './records.js';
import type { TemplateRecord } from '../../src/store/store.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

function renamed(template: TemplateRecord, name: string, isPublic = template.spec.public): TemplateRecord {
  return { ...template, spec: { ...template.spec, name, public: isPublic }, updatedAt: '2031-01-01T00:00:00.000Z' };
}

test(`[${TEST_STORE}] a template reads back exactly as written, by id whoever owns it`, async () => {
  const own = aTemplate(owner.id, { public: true });
  const builtIn = aTemplate(null, { name: 'catalog template' });
  await suite.store.insertTemplate(own);
  await suite.store.insertTemplate(builtIn);
  assert.deepEqual(await suite.store.getTemplate(own.id), own);
  assert.deepEqual(await suite.store.getTemplate(builtIn.id), builtIn);
  assert.equal(await suite.store.getTemplate('tpl-missing'), undefined);
});

test(`[${TEST_STORE}] an account lists its own templates by creation time then id`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const later = aTemplate(account.id);
  const tieB = { ...aTemplate(account.id), id: 'tpl-tie-b', createdAt: '2020-01-01T00:00:00.000Z' };
  const tieA = { ...aTemplate(account.id), id: 'tpl-tie-a', createdAt: '2020-01-01T00:00:00.000Z' };
  for (const template of [later, tieB, aTemplate(stranger.id), tieA]) await suite.store.insertTemplate(template);
  assert.deepEqual(
    (await suite.store.listTemplates(account.id)).map((t) => t.id),
    ['tpl-tie-a', 'tpl-tie-b', later.id],
  );
});

test(`[${TEST_STORE}] the shared slice holds accounts' public templates, oldest first, up to the limit`, async () => {
  const before = (await suite.store.listSharedTemplates(1000)).map((t) => t.id);
  const first = aTemplate(stranger.id, { public: true });
  const hidden = aTemplate(stranger.id, { public: false });
  const builtIn = aTemplate(null, { name: 'built-in public', public: true });
  const second = aTemplate(owner.id, { public: true });
  for (const template of [first, hidden, builtIn, second]) await suite.store.insertTemplate(template);
  const shared = (await suite.store.listSharedTemplates(1000)).map((t) => t.id);
  assert.deepEqual(shared, [...before, first.id, second.id], 'private and built-in templates are left out');
  assert.equal((await suite.store.listSharedTemplates(1)).length, 1);
});

test(`[${TEST_STORE}] an update rewrites the template: its name, its spec and whether it is shared`, async () => {
  const template = aTemplate(owner.id, { name: 'before update' });
  await suite.store.insertTemplate(template);
  const updated = renamed(template, 'after update', true);
  await suite.store.updateTemplate(updated);
  assert.deepEqual(await suite.store.getTemplate(template.id), updated);
  assert.equal(await suite.store.templateNameTaken(owner.id, 'before update'), false, 'the old name is free again');
  assert.equal(await suite.store.templateNameTaken(owner.id, 'after update'), true);
  assert.ok(
    (await suite.store.listSharedTemplates(1000)).some((t) => t.id === template.id),
    'now shared',
  );
});

test(`[${TEST_STORE}] a name is taken within its account only, and never by the template itself`, async () => {
  const template = aTemplate(owner.id, { name: 'unique name' });
  await suite.store.insertTemplate(template);
  assert.equal(await suite.store.templateNameTaken(owner.id, 'unique name'), true);
  assert.equal(await suite.store.templateNameTaken(owner.id, 'unique name', template.id), false);
  assert.equal(await suite.store.templateNameTaken(stranger.id, 'unique name'), false);
  assert.equal(await suite.store.templateNameTaken(owner.id, 'Unique Name'), false, 'names are compared exactly');
});

test(`[${TEST_STORE}] the store refuses a second template of the same name in one account`, async () => {
  await suite.store.insertTemplate(aTemplate(owner.id, { name: 'clash' }));
  await assert.rejects(suite.store.insertTemplate(aTemplate(owner.id, { name: 'clash' })), {
    name: 'StoreConflictError',
    message: `a template named 'clash' already exists in this account`,
  });
  const other = aTemplate(owner.id, { name: 'not yet a clash' });
  await suite.store.insertTemplate(other);
  await assert.rejects(suite.store.updateTemplate(renamed(other, 'clash')), { name: 'StoreConflictError' });
  assert.equal((await suite.store.getTemplate(other.id))?.spec.name, 'not yet a clash');
  await suite.store.insertTemplate(aTemplate(stranger.id, { name: 'clash' }));
  await suite.store.insertTemplate(aTemplate(null, { name: 'clash' }));
  await suite.store.insertTemplate(aTemplate(null, { name: 'clash' }));
});

test(`[${TEST_STORE}] a template id is unique`, async () => {
  const template = aTemplate(owner.id);
  await suite.store.insertTemplate(template);
  await assert.rejects(suite.store.insertTemplate(renamed({ ...template, accountId: stranger.id }, 'other name')), {
    name: 'StoreConflictError',
    message: `template ${template.id} already exists`,
  });
});

test(`[${TEST_STORE}] only the owner deletes a template, once`, async () => {
  const template = aTemplate(owner.id);
  await suite.store.insertTemplate(template);
  assert.equal(await suite.store.deleteTemplate(stranger.id, template.id), false);
  assert.ok(await suite.store.getTemplate(template.id));
  assert.equal(await suite.store.deleteTemplate(owner.id, template.id), true);
  assert.equal(await suite.store.getTemplate(template.id), undefined);
  assert.equal(await suite.store.deleteTemplate(owner.id, template.id), false);
  assert.equal(await suite.store.templateNameTaken(owner.id, template.spec.name), false, 'its name is free again');
});
