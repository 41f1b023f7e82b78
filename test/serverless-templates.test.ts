// Endpoints created or patched from templates: the six template rules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';
import { addRegistry } from './support/registries.js';

let h: Harness;
let ownTemplate: { id: string };
let registry: string;
before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG });
  registry = await addRegistry(h);
  const res = await h.call('POST', '/v2/templates', {
    name: 'own worker',
    image: 'acme/own:3',
    args: 'python -u own.py',
    disk: 30,
    ports: ['9000/http'],
    env: { MODEL: 'own', SHARED: 'template' },
    registry,
    serverless: true,
    allowedCudaVersions: ['12.8'],
    startSsh: true,
    startJupyter: true,
  });
  assert.equal(res.statusCode, 201, res.body);
  ownTemplate = res.json();
});
after(() => h.close());

const body = (extra: Record<string, unknown>) => ({
  name: 'from-template',
  type: 'QUEUE',
  scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
  gpu: { pools: ['ADA_24'] },
  ...extra,
});

test('rule 1: the template resolves into image, args, disk, ports, env and registry', async () => {
  const res = await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id }));
  assert.equal(res.statusCode, 201, res.body);
  const e = res.json();
  assert.deepEqual(
    [e.image, e.args, e.cmd, e.disk, e.ports, e.env, e.registry],
    ['acme/own:3', 'python -u own.py', ['python', '-u', 'own.py'], 30, ['9000/http'], { MODEL: 'own', SHARED: 'template' }, registry],
  );
  assert.equal('templateId' in e, false);
});

test('rule 2: body fields override the template; env merges per key with the body winning', async () => {
  const res = await h.call(
    'POST',
    '/v2/serverless',
    body({
      templateId: ownTemplate.id,
      image: 'acme/override:1',
      disk: 5,
      env: { SHARED: 'body', EXTRA: '1' },
      cmd: ['python', 'other.py'],
    }),
  );
  const e = res.json();
  assert.deepEqual([e.image, e.disk], ['acme/override:1', 5]);
  assert.deepEqual(e.env, { MODEL: 'own', SHARED: 'body', EXTRA: '1' });
  assert.deepEqual([e.cmd, e.args], [['python', 'other.py'], 'python other.py']);
  assert.deepEqual(e.ports, ['9000/http'], 'fields the body leaves out come from the template');
});

test("rule 3: the template's CUDA versions seed a GPU create, unless the body sets its own or a floor", async () => {
  const seeded = (await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id }))).json();
  assert.deepEqual(seeded.gpu.allowedCudaVersions, ['12.8']);
  const own = (
    await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id, gpu: { pools: ['ADA_24'], allowedCudaVersions: ['12.4'] } }))
  ).json();
  assert.deepEqual(own.gpu.allowedCudaVersions, ['12.4']);
  const floor = await h.call(
    'POST',
    '/v2/serverless',
    body({ templateId: ownTemplate.id, gpu: { pools: ['ADA_24'], minCudaVersion: '12.2' } }),
  );
  assert.equal(floor.statusCode, 201, 'no manufactured conflict between a seeded set and a floor');
  assert.deepEqual([floor.json().gpu.allowedCudaVersions, floor.json().gpu.minCudaVersion], [[], '12.2']);
  const cpu = await h.call('POST', '/v2/serverless', {
    ...body({ templateId: ownTemplate.id }),
    gpu: undefined,
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(cpu.statusCode, 201, "a CPU create ignores the template's CUDA versions");
  assert.equal(cpu.json().gpu, null);
});

test('rule 4: startSsh and startJupyter do not reach the endpoint', async () => {
  const e = (await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id }))).json();
  assert.equal(JSON.stringify(e).includes('startSsh'), false);
  assert.equal(e.env.PUBLIC_KEY, undefined);
  assert.equal(e.env.JUPYTER_PASSWORD, undefined);
});

test('rule 5: later template edits do not affect the endpoint', async () => {
  const e = (await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id }))).json();
  const patched = await h.call('PATCH', `/v2/templates/${ownTemplate.id}`, { image: 'acme/own:4', env: { MODEL: 'new' } });
  assert.equal(patched.statusCode, 200);
  const after = (await h.call('GET', `/v2/serverless/${e.id}`)).json();
  assert.deepEqual([after.image, after.env], ['acme/own:3', { MODEL: 'own', SHARED: 'template' }]);
  await h.call('PATCH', `/v2/templates/${ownTemplate.id}`, { image: 'acme/own:3', env: { MODEL: 'own', SHARED: 'template' } });
});

test('rule 6: own or public templates; unknown or inaccessible is 404, non-serverless is 422', async () => {
  const pub = await h.call('POST', '/v2/serverless', body({ templateId: 'pubsrvless' }));
  assert.equal(pub.statusCode, 201, pub.body);
  assert.deepEqual([pub.json().image, pub.json().env], ['acme/public-worker:2', { MODEL: 'base', LOG: 'info' }]);
  assert.equal(pub.json().registry, null);

  const unknown = await h.call('POST', '/v2/serverless', body({ templateId: 'nosuchtmpl' }));
  assert.equal(unknown.statusCode, 404);
  assert.equal(problem(unknown).detail, 'template nosuchtmpl not found');

  const other = await h.newKey({ accountName: 'template-stranger' });
  const hidden = await h.call('POST', '/v2/serverless', body({ templateId: ownTemplate.id }), other);
  assert.equal(hidden.statusCode, 404, "another account's private template is not found");

  const pod = await h.call('POST', '/v2/serverless', body({ templateId: 'pubpodtmpl' }));
  assert.equal(pod.statusCode, 422);
  assert.equal(problem(pod).errors?.[0]?.startsWith('templateId: '), true);
});

test('PATCH with templateId applies its settings as if sent, body fields winning', async () => {
  const e = (await h.call('POST', '/v2/serverless', body({ image: 'acme/plain:1', env: { KEEP: 'no' } }))).json();
  const res = await h.call('PATCH', `/v2/serverless/${e.id}`, { templateId: ownTemplate.id, disk: 12, env: { EXTRA: 'yes' } });
  assert.equal(res.statusCode, 200, res.body);
  const p = res.json();
  assert.deepEqual([p.image, p.disk, p.args], ['acme/own:3', 12, 'python -u own.py']);
  assert.deepEqual(p.env, { MODEL: 'own', SHARED: 'template', EXTRA: 'yes' }, 'template env merged with the body, replacing the old env');
  assert.equal(p.version, 2);
  assert.deepEqual(p.gpu.allowedCudaVersions, [], 'PATCH does not seed CUDA versions');
});
