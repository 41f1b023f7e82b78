import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG_FILE } from '../src/catalog/catalog.js';
import type { CatalogData, PublicTemplateEntry } from '../src/domain/catalog.js';
import { ApiError } from '../src/domain/errors.js';
import { startHarness, problem, type Harness } from './support/harness.js';
import { addRegistry } from './support/registries.js';

// The test writes its own catalog (the shipped one plus these entries) so it does not depend on shipped data.
const CATALOG_SERVERLESS: PublicTemplateEntry = {
  id: 'tpltest-catalog-srv',
  name: 'Catalog serverless worker',
  image: 'acme/catalog-worker:3',
  source: 'official',
  serverless: true,
  category: 'NVIDIA',
  args: 'python -u handler.py',
  disk: 25,
  env: { MODEL: 'base' },
  allowedCudaVersions: ['12.4'],
  registry: 'catalog-secret-credential',
};
const CATALOG_POD: PublicTemplateEntry = {
  id: 'tpltest-catalog-pod',
  name: 'Catalog pod template',
  image: 'acme/pod:1',
  source: 'verified',
  serverless: false,
  category: 'AMD',
};

const VALIDATION = 'the request body failed validation';
const RULES = 'request conflicts with the template rules';

let h: Harness;
let catalogDir: string;
let otherKey: string;
let readKey: string;
let otherAccountId: string;
let defaultAccountId: string;
/** Registry credentials of the default account and of the other one. */
let ownCred: string;
let theirCred: string;
let counter = 0;
const uniqueName = (base: string) => `${base}-${++counter}`;

async function create(body: Record<string, unknown>, key?: string) {
  const res = await h.call('POST', '/v2/templates', { name: uniqueName('tpl'), image: 'acme/app:1', ...body }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as Record<string, unknown> & { id: string; name: string };
}

async function accountOf(key: string): Promise<string> {
  const check = await h.services.apiKeys.verify(key);
  assert.ok(check.ok);
  return check.key.accountId;
}

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

describe('POST /v2/templates', () => {
  test('fills every default', async () => {
    const res = await h.call('POST', '/v2/templates', { name: 'defaults', image: 'acme/app:1' });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^[a-z0-9]{10}$/);
    assert.deepEqual(body, {
      id: body.id,
      name: 'defaults',
      image: 'acme/app:1',
      args: '',
      entrypoint: [],
      cmd: [],
      disk: 10,
      mounts: {},
      ports: [],
      env: {},
      registry: null,
      serverless: false,
      public: false,
      category: 'NVIDIA',
      startSsh: true,
      startJupyter: true,
      allowedCudaVersions: [],
    });
  });

  test('keeps every field sent', async () => {
    const body = await create({
      name: 'full',
      disk: 40,
      ports: ['8000/http', '22/tcp'],
      env: { A: '1' },
      registry: ownCred,
      allowedCudaVersions: ['12.8', '12.4'],
      category: 'CPU',
      mounts: { persistent: { size: 20, path: '/workspace' } },
      public: true,
      serverless: true,
      startJupyter: false,
      startSsh: false,
    });
    assert.deepEqual(
      { ...body, id: undefined },
      {
        id: undefined,
        name: 'full',
        image: 'acme/app:1',
        args: '',
        entrypoint: [],
        cmd: [],
        disk: 40,
        mounts: { persistent: { size: 20, path: '/workspace' } },
        ports: ['8000/http', '22/tcp'],
        env: { A: '1' },
        registry: ownCred,
        serverless: true,
        public: true,
        category: 'CPU',
        startSsh: false,
        startJupyter: false,
        allowedCudaVersions: ['12.8', '12.4'],
      },
    );
  });

  const schemaCases: [string, Record<string, unknown>, string[]][] = [
    ['unknown top-level property', { name: 's1', image: 'i', colour: 'red' }, ['colour: unknown property']],
    ['unknown property inside mounts', { name: 's2', image: 'i', mounts: { network: { id: 'v' } } }, ['mounts.network: unknown property']],
    [
      'unknown property inside mounts.persistent',
      { name: 's3', image: 'i', mounts: { persistent: { size: 5, path: '/data', mode: 'rw' } } },
      ['mounts.persistent.mode: unknown property'],
    ],
    [
      'mount path not absolute',
      { name: 's4', image: 'i', mounts: { persistent: { size: 5, path: 'data' } } },
      ['mounts.persistent.path: must match pattern "^/"'],
    ],
    ['missing name', { image: 'i' }, ['name: is required']],
    ['empty name', { name: '', image: 'i' }, ['name: must NOT have fewer than 1 characters']],
    ['missing image', { name: 's5' }, ['image: is required']],
    [
      'bad cuda version',
      { name: 's6', image: 'i', allowedCudaVersions: ['12'] },
      ['allowedCudaVersions[0]: must match pattern "^\\d+\\.\\d+$"'],
    ],
    [
      'duplicate cuda version',
      { name: 's7', image: 'i', allowedCudaVersions: ['12.4', '12.4'] },
      ['allowedCudaVersions[1]: duplicates allowedCudaVersions[0]'],
    ],
    ['disk 0', { name: 's8', image: 'i', disk: 0 }, ['disk: must be >= 1']],
    ['bad category', { name: 's9', image: 'i', category: 'TPU' }, ['category: must be one of CPU, NVIDIA, AMD']],
  ];
  for (const [label, body, errors] of schemaCases) {
    test(`schema failure answers 422: ${label}`, async () => {
      const res = await h.call('POST', '/v2/templates', body);
      assert.equal(res.statusCode, 422);
      assert.deepEqual(problem(res), { title: 'Unprocessable Entity', status: 422, detail: VALIDATION, errors });
    });
  }

  const ruleCases: [string, Record<string, unknown>, string[]][] = [
    [
      'bad port',
      { ports: ['80/sctp'] },
      ["ports[0]: '80/sctp' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp"],
    ],
    ['duplicate port', { ports: ['8000/http', '8000/http'] }, ['ports[1]: duplicates ports[0]']],
    [
      'bad env name',
      { env: { '1BAD': 'x' } },
      ['env.1BAD: must be a valid environment variable name (letters, digits and _, not starting with a digit)'],
    ],
    [
      'args and cmd disagree',
      { args: 'python a.py', cmd: ['python', 'b.py'] },
      ['cmd: does not match args, which gives cmd ["python","a.py"]'],
    ],
    ['malformed JSON args', { args: '{"cmd": [' }, ['args: looks like a JSON object but is not valid JSON']],
    [
      'several at once',
      { ports: ['0/tcp'], env: { 'A-B': '1' } },
      [
        "ports[0]: '0/tcp' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp",
        'env.A-B: must be a valid environment variable name (letters, digits and _, not starting with a digit)',
      ],
    ],
  ];
  for (const [label, extra, errors] of ruleCases) {
    test(`container rule failure answers 400: ${label}`, async () => {
      const res = await h.call('POST', '/v2/templates', { name: uniqueName('rule'), image: 'i', ...extra });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(problem(res), { title: 'Bad Request', status: 400, detail: RULES, errors });
    });
  }

  test('args as a shell string is split into CMD and kept as sent', async () => {
    const args = `python -c "print('hello world')" --flag`;
    const body = await create({ args });
    assert.equal(body.args, args);
    assert.deepEqual(body.entrypoint, []);
    assert.deepEqual(body.cmd, ['python', '-c', "print('hello world')", '--flag']);
  });

  test('args as a JSON object string sets entrypoint and cmd', async () => {
    const args = '{"entrypoint": ["/bin/sh", "-c"], "cmd": ["echo hi"]}';
    const body = await create({ args, entrypoint: ['/bin/sh', '-c'] });
    assert.equal(body.args, args);
    assert.deepEqual(body.entrypoint, ['/bin/sh', '-c']);
    assert.deepEqual(body.cmd, ['echo hi']);
  });

  test('cmd alone is encoded into args', async () => {
    const body = await create({ cmd: ['python', 'handler.py', '--name', 'a b'] });
    assert.equal(body.args, "python handler.py --name 'a b'");
    assert.deepEqual(body.entrypoint, []);
    const withEntrypoint = await create({ entrypoint: ['/run.sh'], cmd: ['x'] });
    assert.equal(withEntrypoint.args, '{"entrypoint":["/run.sh"],"cmd":["x"]}');
  });

  test('a name already used in the account answers 409; another account may use it', async () => {
    await create({ name: 'taken' });
    const res = await h.call('POST', '/v2/templates', { name: 'taken', image: 'i' });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(problem(res).errors, ["name: 'taken' is already used by another template of this account"]);
    await create({ name: 'taken' }, otherKey);
  });

  test('a read-only key can read but not write', async () => {
    const res = await h.call('POST', '/v2/templates', { name: 'ro', image: 'i' }, readKey);
    assert.equal(res.statusCode, 403);
    assert.equal(problem(res).detail, 'this API key is read-only');
    const own = await create({});
    assert.equal((await h.call('GET', `/v2/templates/${own.id}`, undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('GET', '/v2/templates', undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('PATCH', `/v2/templates/${own.id}`, { disk: 5 }, readKey)).statusCode, 403);
    assert.equal((await h.call('DELETE', `/v2/templates/${own.id}`, undefined, readKey)).statusCode, 403);
  });
});

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
