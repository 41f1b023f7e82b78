// Reading, changing and deleting templates (GET, PATCH and DELETE /v2/templates): an account's
// own templates, other accounts' public and private ones, and the catalog's, which are read-only.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem } from './support/harness.js';
import { CATALOG_POD, CATALOG_SERVERLESS } from './support/templates-catalog.js';
import { create, h, otherAccountId, otherKey, ownCred, theirCred, useTemplatesHarness } from './support/templates-harness.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

useTemplatesHarness();

describe('GET /v2/templates', () => {
  test("lists only the caller's own templates", async () => {
    const mine = await create({ public: true });
    const theirs = await create({ public: true }, otherKey);
    const listed = (await h.call('GET', '/v2/templates', undefined, otherKey)).json().templates as { id: string }[];
    assert.ok(listed.some((t) => t.id === theirs.id));
    assert.ok(!listed.some((t) => t.id === mine.id));
    const all = (await h.services.store.listTemplates(otherAccountId)).map((t) => t.id).sort();
    assert.deepEqual(listed.map((t) => t.id).sort(), all);
  });
});

describe('GET /v2/templates/{id}', () => {
  test('own template, with its registry', async () => {
    const own = await create({ registry: ownCred });
    const res = await h.call('GET', `/v2/templates/${own.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), own);
    assert.equal(res.json().registry, ownCred);
  });

  test("another account's public template, with the registry hidden", async () => {
    const theirs = await create({ public: true, registry: theirCred }, otherKey);
    const res = await h.call('GET', `/v2/templates/${theirs.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ...theirs, registry: null });
  });

  test("another account's private template is indistinguishable from an unknown id", async () => {
    const theirs = await create({ public: false }, otherKey);
    const hidden = await h.call('GET', `/v2/templates/${theirs.id}`);
    const unknown = await h.call('GET', '/v2/templates/zzzzzzzzzz');
    assert.equal(hidden.statusCode, 404);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(problem(hidden), { title: 'Not Found', status: 404, detail: `template ${theirs.id} not found` });
    assert.deepEqual(problem(unknown), { title: 'Not Found', status: 404, detail: 'template zzzzzzzzzz not found' });
  });

  test('a catalog public template, with defaults for what the catalog leaves out', async () => {
    const res = await h.call('GET', `/v2/templates/${CATALOG_SERVERLESS.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: CATALOG_SERVERLESS.id,
      name: 'Catalog serverless worker',
      image: 'acme/catalog-worker:3',
      args: 'python -u handler.py',
      entrypoint: [],
      cmd: ['python', '-u', 'handler.py'],
      disk: 25,
      mounts: {},
      ports: [],
      env: { MODEL: 'base' },
      registry: null,
      serverless: true,
      public: true,
      category: 'NVIDIA',
      startSsh: true,
      startJupyter: true,
      allowedCudaVersions: ['12.4'],
    });
  });
});

describe('PATCH /v2/templates/{id}', () => {
  test('changes only the fields sent', async () => {
    const original = await create({
      args: 'python a.py',
      env: { A: '1' },
      ports: ['8000/http'],
      allowedCudaVersions: ['12.4'],
      mounts: { persistent: { size: 20, path: '/workspace' } },
      registry: ownCred,
    });
    const res = await h.call('PATCH', `/v2/templates/${original.id}`, { disk: 30, public: true });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ...original, disk: 30, public: true });
    assert.deepEqual((await h.call('GET', `/v2/templates/${original.id}`)).json(), res.json());
  });

  test('an empty body returns the template unchanged', async () => {
    const original = await create({ env: { A: '1' } });
    const res = await h.call('PATCH', `/v2/templates/${original.id}`, {});
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), original);
  });

  test('mounts {} leaves the mount; a new persistent replaces it; allowedCudaVersions [] clears', async () => {
    const original = await create({ mounts: { persistent: { size: 20, path: '/workspace' } }, allowedCudaVersions: ['12.4', '12.8'] });
    const kept = await h.call('PATCH', `/v2/templates/${original.id}`, { mounts: {}, allowedCudaVersions: [] });
    assert.equal(kept.statusCode, 200);
    assert.deepEqual(kept.json().mounts, { persistent: { size: 20, path: '/workspace' } });
    assert.deepEqual(kept.json().allowedCudaVersions, []);
    const replaced = await h.call('PATCH', `/v2/templates/${original.id}`, { mounts: { persistent: { size: 50, path: '/data' } } });
    assert.deepEqual(replaced.json().mounts, { persistent: { size: 50, path: '/data' } });
    const network = await h.call('PATCH', `/v2/templates/${original.id}`, { mounts: { network: {} } });
    assert.equal(network.statusCode, 422);
    assert.deepEqual(problem(network).errors, ['mounts.network: unknown property']);
  });

  test('command fields apply to the stored command', async () => {
    const original = await create({ entrypoint: ['/entry.sh'], cmd: ['serve'] });
    const cmdOnly = await h.call('PATCH', `/v2/templates/${original.id}`, { cmd: ['train', '--fast'] });
    assert.deepEqual(
      { args: cmdOnly.json().args, entrypoint: cmdOnly.json().entrypoint, cmd: cmdOnly.json().cmd },
      { args: '{"entrypoint":["/entry.sh"],"cmd":["train","--fast"]}', entrypoint: ['/entry.sh'], cmd: ['train', '--fast'] },
    );
    const args = await h.call('PATCH', `/v2/templates/${original.id}`, { args: 'python run.py' });
    assert.deepEqual(
      { args: args.json().args, entrypoint: args.json().entrypoint, cmd: args.json().cmd },
      { args: 'python run.py', entrypoint: [], cmd: ['python', 'run.py'] },
    );
    const cleared = await h.call('PATCH', `/v2/templates/${original.id}`, { args: '' });
    assert.deepEqual([cleared.json().args, cleared.json().entrypoint, cleared.json().cmd], ['', [], []]);
  });

  test('rule and schema failures leave the template unchanged', async () => {
    const original = await create({ ports: ['8000/http'] });
    const rules = await h.call('PATCH', `/v2/templates/${original.id}`, { ports: ['8000/http', '8000/http'], args: '{bad' });
    assert.equal(rules.statusCode, 400);
    assert.deepEqual(problem(rules).errors, ['args: looks like a JSON object but is not valid JSON', 'ports[1]: duplicates ports[0]']);
    const schema = await h.call('PATCH', `/v2/templates/${original.id}`, { name: '', disk: 0, extra: 1 });
    assert.equal(schema.statusCode, 422);
    assert.deepEqual(problem(schema).errors, [
      'extra: unknown property',
      'name: must NOT have fewer than 1 characters',
      'disk: must be >= 1',
    ]);
    assert.deepEqual((await h.call('GET', `/v2/templates/${original.id}`)).json(), original);
  });

  test('renaming onto another template of the account answers 409; keeping its own name does not', async () => {
    const first = await create({});
    const second = await create({});
    const res = await h.call('PATCH', `/v2/templates/${second.id}`, { name: first.name });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(problem(res).errors, [`name: '${first.name}' is already used by another template of this account`]);
    assert.equal((await h.call('PATCH', `/v2/templates/${second.id}`, { name: second.name })).statusCode, 200);
  });

  test("another account's templates and catalog templates answer 404", async () => {
    const theirsPublic = await create({ public: true }, otherKey);
    for (const id of [theirsPublic.id, CATALOG_SERVERLESS.id, 'zzzzzzzzzz']) {
      const res = await h.call('PATCH', `/v2/templates/${id}`, { disk: 99 });
      assert.equal(res.statusCode, 404);
      assert.equal(problem(res).detail, `template ${id} not found`);
    }
    assert.equal((await h.call('GET', `/v2/templates/${theirsPublic.id}`, undefined, otherKey)).json().disk, 10);
  });
});

describe('DELETE /v2/templates/{id}', () => {
  test('deletes own template; it is gone afterwards', async () => {
    const own = await create({});
    const res = await h.call('DELETE', `/v2/templates/${own.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await h.call('GET', `/v2/templates/${own.id}`)).statusCode, 404);
    assert.equal((await h.call('DELETE', `/v2/templates/${own.id}`)).statusCode, 404);
  });

  test('a template an endpoint was made from is in use: 400 naming the endpoint, until the endpoint goes', async () => {
    const used = await create({ serverless: true });
    const endpoint = await h.call('POST', '/v2/serverless', queueEndpointBody('from-template', { templateId: used.id, image: undefined }));
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const refused = await h.call('DELETE', `/v2/templates/${used.id}`);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(problem(refused).detail, new RegExp(`in use by endpoint ${endpoint.json().id as string} \\('from-template'\\)`));
    assert.equal((await h.call('GET', `/v2/templates/${used.id}`)).statusCode, 200, 'it stays');
    assert.equal((await h.call('DELETE', `/v2/serverless/${endpoint.json().id as string}`)).statusCode, 204);
    assert.equal((await h.call('DELETE', `/v2/templates/${used.id}`)).statusCode, 204);
  });

  test("another account's template and catalog templates answer 404 and stay", async () => {
    const theirs = await create({ public: true }, otherKey);
    for (const id of [theirs.id, CATALOG_POD.id]) {
      const res = await h.call('DELETE', `/v2/templates/${id}`);
      assert.equal(res.statusCode, 404);
      assert.equal(problem(res).detail, `template ${id} not found`);
    }
    assert.equal((await h.call('GET', `/v2/templates/${theirs.id}`, undefined, otherKey)).statusCode, 200);
  });
});
