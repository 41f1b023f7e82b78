// GET, PATCH and DELETE of serverless endpoints, and account isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG });
});
after(() => h.close());

const base = {
  name: 'inference',
  type: 'QUEUE',
  scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
  image: 'acme/worker:1',
};

async function create(extra: Record<string, unknown> = { gpu: { pools: ['ADA_24'] } }, key?: string) {
  const res = await h.call('POST', '/v2/serverless', { ...base, ...extra }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function patch(id: string, body: unknown, status = 200) {
  const res = await h.call('PATCH', `/v2/serverless/${id}`, body);
  assert.equal(res.statusCode, status, res.body);
  return status === 200 ? res.json() : problem(res);
}

describe('list, get and delete', () => {
  test("list returns the account's endpoints in creation order", async () => {
    const key = await h.newKey({ accountName: 'lister' });
    const a = await create({ name: 'a', gpu: { pools: ['ADA_24'] } }, key);
    const b = await create({ name: 'b', cpu: [{ id: 'cpu3c', vcpuCount: 2 }] }, key);
    const res = await h.call('GET', '/v2/serverless', undefined, key);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { endpoints: [a, b] });
  });

  test('delete answers 204, then the endpoint is gone', async () => {
    const e = await create();
    const res = await h.call('DELETE', `/v2/serverless/${e.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await h.call('GET', `/v2/serverless/${e.id}`)).statusCode, 404);
    assert.equal((await h.call('DELETE', `/v2/serverless/${e.id}`)).statusCode, 404);
  });

  test("another account's endpoint answers 404 exactly like an unknown one", async () => {
    const e = await create();
    const other = await h.newKey({ accountName: 'intruder' });
    const unknown = await h.call('GET', '/v2/serverless/doesnotexist00', undefined, other);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await h.call(method, `/v2/serverless/${e.id}`, body, other);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(Object.keys(problem(res)), Object.keys(problem(unknown)));
      assert.equal(problem(res).detail, `endpoint ${e.id} not found`);
    }
    const listed = (await h.call('GET', '/v2/serverless', undefined, other)).json();
    assert.deepEqual(listed, { endpoints: [] });
    assert.equal((await h.call('GET', `/v2/serverless/${e.id}`)).statusCode, 200, 'the owner still sees it');
  });
});

describe('PATCH', () => {
  test('changes only the fields sent', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] }, env: { A: '1' }, workers: { min: 0, max: 5, idleTimeout: 20 } });
    const updated = await patch(e.id, { name: 'renamed', workers: { max: 8 } });
    assert.equal(updated.name, 'renamed');
    assert.deepEqual(updated.workers, { min: 0, max: 8, idleTimeout: 20 });
    const { name: _a, workers: _b, ...restBefore } = e;
    const { name: _c, workers: _d, ...restAfter } = updated;
    assert.deepEqual(restAfter, restBefore);
  });

  test('an empty body changes nothing', async () => {
    const e = await create();
    assert.deepEqual(await patch(e.id, {}), e);
  });

  test('pools and exclusions are one selection', async () => {
    const e = await create({ gpu: { pools: ['ADA_24', 'ADA_48_PRO'], excludedTypes: ['NVIDIA L4'] } });
    const countOnly = await patch(e.id, { gpu: { count: 2, minCudaVersion: '12.4' } });
    assert.deepEqual(countOnly.gpu, {
      pools: ['ADA_24', 'ADA_48_PRO'],
      excludedTypes: ['NVIDIA L4'],
      count: 2,
      allowedCudaVersions: [],
      minCudaVersion: '12.4',
    });
    const poolsOnly = await patch(e.id, { gpu: { pools: ['ADA_48_PRO'] } });
    assert.deepEqual(poolsOnly.gpu.excludedTypes, [], 'sending pools without excludedTypes clears the exclusions');
    const both = await patch(e.id, { gpu: { pools: ['ADA_24'], excludedTypes: [' NVIDIA GeForce RTX 4090'] } });
    assert.deepEqual([both.gpu.pools, both.gpu.excludedTypes], [['ADA_24'], ['NVIDIA GeForce RTX 4090']]);
  });

  test('an exclusion outside the new pools is 400; exclusions without pools is 422', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] } });
    const p = await patch(e.id, { gpu: { pools: ['ADA_48_PRO'], excludedTypes: ['NVIDIA L4'] } }, 400);
    assert.deepEqual(p.errors, ["gpu.excludedTypes[0]: 'NVIDIA L4' is not a GPU type in the selected pools (ADA_48_PRO)"]);
    const q = await patch(e.id, { gpu: { excludedTypes: ['NVIDIA L4'] } }, 422);
    assert.deepEqual(q.errors, ['gpu.pools: is required when excludedTypes is set']);
  });

  test('CUDA constraints: clearing, and conflicts with what the endpoint already carries', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'], allowedCudaVersions: ['12.8'] } });
    const conflict = await patch(e.id, { gpu: { minCudaVersion: '12.2' } }, 400);
    assert.deepEqual(conflict.errors, [
      'gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions; use one or the other',
    ]);
    const swapped = await patch(e.id, { gpu: { allowedCudaVersions: [], minCudaVersion: '12.2' } });
    assert.deepEqual([swapped.gpu.allowedCudaVersions, swapped.gpu.minCudaVersion], [[], '12.2']);
    const cleared = await patch(e.id, { gpu: { minCudaVersion: '' } });
    assert.equal(cleared.gpu.minCudaVersion, null);
  });

  test('the compute family cannot change', async () => {
    const gpu = await create({ gpu: { pools: ['ADA_24'] } });
    const p = await patch(gpu.id, { cpu: [{ id: 'cpu3c', vcpuCount: 2 }] }, 400);
    assert.deepEqual(p.errors, ['cpu: cannot be set on a GPU endpoint']);
    const cpu = await create({ cpu: [{ id: 'cpu3c', vcpuCount: 2 }] });
    assert.deepEqual((await patch(cpu.id, { gpu: { count: 1 } }, 400)).errors, ['gpu: cannot be set on a CPU endpoint']);
    const both = await patch(cpu.id, { gpu: { count: 1 }, cpu: [{ id: 'cpu3c', vcpuCount: 2 }] }, 400);
    assert.deepEqual(both.errors, ['cpu: cannot be combined with gpu']);
    const replaced = await patch(cpu.id, { cpu: [{ id: 'cpu5m', vcpuCount: 4 }] });
    assert.deepEqual(replaced.cpu, [{ id: 'cpu5m', vcpuCount: 4, memory: 32 }]);
  });

  test('type cannot be patched and unknown fields are 422', async () => {
    const e = await create();
    const p = await patch(e.id, { type: 'LOAD_BALANCER', bogus: true }, 422);
    assert.deepEqual(p.errors, ['type: unknown property', 'bogus: unknown property']);
  });

  test('scaling switches; idleTimeout follows the QUEUE + REQUEST_COUNT rule', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] }, workers: { idleTimeout: 45 } });
    const rc = await patch(e.id, { scaling: { type: 'REQUEST_COUNT', requestCount: 2 } });
    assert.deepEqual(rc.workers, { min: 0, max: 3 });
    const refused = await patch(e.id, { workers: { idleTimeout: 5 } }, 400);
    assert.deepEqual(refused.errors, ['workers.idleTimeout: does not apply to a QUEUE endpoint scaling on REQUEST_COUNT; leave it out']);
    const back = await patch(e.id, { scaling: { type: 'QUEUE_DELAY', queueDelay: 2 } });
    assert.deepEqual(back.workers, { min: 0, max: 3, idleTimeout: 45 }, 'the earlier idleTimeout returns');
    const lb = await create({ type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 1 }, gpu: { pools: ['ADA_24'] } });
    const lbRefused = await patch(lb.id, { scaling: { type: 'QUEUE_DELAY', queueDelay: 2 } }, 422);
    assert.deepEqual(lbRefused.errors, ['scaling.type: must be REQUEST_COUNT for a LOAD_BALANCER endpoint']);
  });

  test('workers are checked after merging', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] }, workers: { min: 2, max: 4 } });
    const p = await patch(e.id, { workers: { max: 1 } }, 400);
    assert.deepEqual(p.errors, ['workers.min: must not exceed workers.max (1)']);
  });

  test('the command: args replaces it, entrypoint or cmd alone replace their part', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] }, entrypoint: ['/entry.sh'], cmd: ['serve'] });
    const cmd = await patch(e.id, { cmd: ['serve', '--fast'] });
    assert.deepEqual(
      [cmd.entrypoint, cmd.cmd, cmd.args],
      [['/entry.sh'], ['serve', '--fast'], '{"entrypoint":["/entry.sh"],"cmd":["serve","--fast"]}'],
    );
    const args = await patch(e.id, { args: 'python app.py' });
    assert.deepEqual([args.entrypoint, args.cmd, args.args], [[], ['python', 'app.py'], 'python app.py']);
    const cleared = await patch(e.id, { args: '' });
    assert.deepEqual([cleared.entrypoint, cleared.cmd, cleared.args], [[], [], '']);
  });

  test('the configuration version grows only when what workers run changes', async () => {
    const e = await create({ gpu: { pools: ['ADA_24'] }, env: { A: '1', B: '2' } });
    assert.equal(e.version, 1);
    const settings = await patch(e.id, {
      name: 'n2',
      workers: { max: 6 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 9 },
      timeout: 60000,
      flashboot: 'FLASHBOOT',
    });
    assert.equal(settings.version, 1, 'name, workers, scaling, timeout and flashboot are not worker config');
    const sameEnv = await patch(e.id, { env: { B: '2', A: '1' }, image: 'acme/worker:1' });
    assert.equal(sameEnv.version, 1, 'the same values in another order are no change');
    const image = await patch(e.id, { image: 'acme/worker:2' });
    assert.equal(image.version, 2);
    const env = await patch(e.id, { env: { A: '3' } });
    assert.equal(env.version, 3);
    assert.deepEqual(env.env, { A: '3' }, 'env is replaced as a whole');
    const gpu = await patch(e.id, { gpu: { count: 2 } });
    assert.equal(gpu.version, 4);
  });

  test('unknown endpoint is 404', async () => {
    await patch('nosuchendpoint', { name: 'x' }, 404);
  });
});
