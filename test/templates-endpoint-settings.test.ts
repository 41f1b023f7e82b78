// A template as an endpoint's settings (TemplateService.resolveForEndpoint): which templates an
// account may build an endpoint from, and what they give it; another account's registry never.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../src/domain/errors.js';
import { CATALOG_POD, CATALOG_SERVERLESS } from './support/templates-catalog.js';
import { create, defaultAccountId, h, otherKey, ownCred, theirCred, useTemplatesHarness } from './support/templates-harness.js';

useTemplatesHarness();

describe('TemplateService.resolveForEndpoint', () => {
  async function rejection(promise: Promise<unknown>): Promise<ApiError> {
    const error = await promise.then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ApiError);
    return error;
  }

  test('unknown or inaccessible templates are 404', async () => {
    const theirsPrivate = await create({ serverless: true }, otherKey);
    for (const id of ['zzzzzzzzzz', theirsPrivate.id]) {
      const error = await rejection(h.services.templates.resolveForEndpoint(defaultAccountId, id));
      assert.equal(error.status, 404);
      assert.equal(error.message, `template ${id} not found`);
    }
  });

  test('a template that is not serverless is 422', async () => {
    const own = await create({ serverless: false });
    for (const id of [own.id, CATALOG_POD.id]) {
      const error = await rejection(h.services.templates.resolveForEndpoint(defaultAccountId, id));
      assert.equal(error.status, 422);
      assert.equal(error.message, `template ${id} is not a serverless template`);
      assert.deepEqual(error.errors, [
        `templateId: template ${id} is not a serverless template; only serverless templates can configure an endpoint`,
      ]);
    }
  });

  test('own template resolves with its registry', async () => {
    const own = await create({
      serverless: true,
      args: 'python -u handler.py',
      disk: 30,
      ports: ['8000/http'],
      env: { A: '1' },
      registry: ownCred,
      allowedCudaVersions: ['12.8'],
      startSsh: false,
    });
    assert.deepEqual(await h.services.templates.resolveForEndpoint(defaultAccountId, own.id), {
      settings: {
        image: 'acme/app:1',
        args: 'python -u handler.py',
        entrypoint: [],
        cmd: ['python', '-u', 'handler.py'],
        disk: 30,
        ports: ['8000/http'],
        env: { A: '1' },
        registry: ownCred,
      },
      allowedCudaVersions: ['12.8'],
    });
  });

  test("another account's public template and catalog templates resolve without a registry", async () => {
    const theirs = await create({ serverless: true, public: true, registry: theirCred, image: 'acme/theirs:2' }, otherKey);
    const resolved = await h.services.templates.resolveForEndpoint(defaultAccountId, theirs.id);
    assert.equal(resolved.settings.image, 'acme/theirs:2');
    assert.equal(resolved.settings.registry, null);
    const catalog = await h.services.templates.resolveForEndpoint(defaultAccountId, CATALOG_SERVERLESS.id);
    assert.deepEqual(catalog, {
      settings: {
        image: 'acme/catalog-worker:3',
        args: 'python -u handler.py',
        entrypoint: [],
        cmd: ['python', '-u', 'handler.py'],
        disk: 25,
        ports: [],
        env: { MODEL: 'base' },
        registry: null,
      },
      allowedCudaVersions: ['12.4'],
    });
  });
});
