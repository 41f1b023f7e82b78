// What the template tests share: a Gantry whose catalog holds the two templates of
// templates-catalog.ts, a second account, a read-only key, and a registry credential in each
// account. A test file calls useTemplatesHarness() at its top; its tests then read `h`
// and the keys, ids and credentials below, and make templates with `create`.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG_FILE } from '../../src/catalog/catalog.js';
import type { CatalogData } from '../../src/domain/catalog.js';
import { startHarness, type Harness } from './harness.js';
import { addRegistry } from './registries.js';
import { CATALOG_POD, CATALOG_SERVERLESS } from './templates-catalog.js';

export let h: Harness;
export let otherKey: string;
export let readKey: string;
export let otherAccountId: string;
export let defaultAccountId: string;
/** Registry credentials of the default account and of the other one. */
export let ownCred: string;
export let theirCred: string;
let counter = 0;
export const uniqueName = (base: string) => `${base}-${++counter}`;

export async function create(body: Record<string, unknown>, key?: string) {
  const res = await h.call('POST', '/v2/templates', { name: uniqueName('tpl'), image: 'acme/app:1', ...body }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as Record<string, unknown> & { id: string; name: string };
}

async function accountOf(key: string): Promise<string> {
  const check = await h.services.apiKeys.verify(key);
  assert.ok(check.ok);
  return check.key.accountId;
}

/**
 * Starts `h` before the file's tests, on a catalog written for them, and makes the keys and
 * credentials; closes it after them.
 */
export function useTemplatesHarness(): void {
  let catalogDir: string;
  before(async () => {
    catalogDir = mkdtempSync(join(tmpdir(), 'gantry-templates-catalog-'));
    const shipped = JSON.parse(readFileSync(DEFAULT_CATALOG_FILE, 'utf8')) as CatalogData;
    const catalogFile = join(catalogDir, 'catalog.json');
    writeFileSync(catalogFile, JSON.stringify({ ...shipped, templates: [...shipped.templates, CATALOG_SERVERLESS, CATALOG_POD] }));
    h = await startHarness({ catalogFile });
    otherKey = await h.newKey({ accountName: 'other' });
    readKey = await h.newKey({ permission: 'read' });
    otherAccountId = await accountOf(otherKey);
    defaultAccountId = await accountOf(h.adminKey);
    assert.notEqual(otherAccountId, defaultAccountId);
    ownCred = await addRegistry(h);
    theirCred = await addRegistry(h, otherKey);
  });

  after(async () => {
    await h.close();
    rmSync(catalogDir, { recursive: true, force: true });
  });
}
