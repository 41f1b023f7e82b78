// POST /v2/serverless: every rule of the contract, through HTTP, with exact statuses and error entries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';

const queueDelay = { type: 'QUEUE_DELAY', queueDelay: 4 };
const gpuBody = (extra: Record<string, unknown> = {}) => ({
  name: 'inference',
  type: 'QUEUE',
  scaling: queueDelay,
  image: 'acme/worker:1',
  gpu: { pools: ['ADA_24'] },
  ...extra,
});
const cpuBody = (extra: Record<string, unknown> = {}) => ({
  name: 'batch',
  type: 'QUEUE',
  scaling: queueDelay,
  image: 'acme/worker:1',
  cpu: [{ id: 'cpu3c', vcpuCount: 4 }],
  ...extra,
});
const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

let h: Harness;
before(async () => {
  h = await startHarness({
    catalogFile: FIXTURE_CATALOG,
    publicUrl: 'https://api.example.test',
    lbUrlPattern: 'https://{id}.lb.example.test',
  });
});
after(() => h.close());

async function rejected(body: unknown, status: number, errors: string[]) {
  const res = await h.call('POST', '/v2/serverless', body);
  const p = problem(res);
  assert.equal(res.statusCode, status, res.body);
  assert.equal(p.status, status);
  assert.deepEqual(p.errors, errors);
  return p;
}

async function created(body: unknown) {
  const res = await h.call('POST', '/v2/serverless', body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describe('create: defaults and response shape', () => {
  test('timeout takes any positive number of milliseconds, sub-second ones too', async () => {
    assert.equal((await created({ ...gpuBody(), timeout: 250 })).timeout, 250);
    for (const timeout of [0, -1, 1.5]) {
      const res = await h.call('POST', '/v2/serverless', { ...gpuBody(), timeout });
      assert.equal(res.statusCode, 422, `timeout ${timeout}`);
    }
  });

  test('a minimal GPU endpoint gets every documented default', async () => {
    const e = await created(gpuBody());
    assert.match(e.id, /^[a-z0-9]{14}$/);
    assert.equal(e.name, 'inference');
    assert.equal(e.type, 'QUEUE');
    assert.deepEqual(e.workers, { min: 0, max: 3, idleTimeout: 10 });
    assert.equal(e.timeout, 300000);
    assert.equal(e.flashboot, 'OFF');
    assert.deepEqual(e.dataCenterIds, []);
    assert.deepEqual(e.networkVolumes, []);
    assert.deepEqual(e.gpu, { pools: ['ADA_24'], excludedTypes: [], count: 1, allowedCudaVersions: [], minCudaVersion: null });
    assert.equal('cpu' in e, false);
    assert.deepEqual([e.args, e.entrypoint, e.cmd], ['', [], []]);
    assert.deepEqual(e.env, {});
    assert.deepEqual(e.ports, []);
    assert.equal(e.registry, null);
    assert.equal(e.version, 1);
    assert.ok(!Number.isNaN(Date.parse(e.createdAt)));
  });

  test('queue endpoints get every queue URL under the worker API base', async () => {
    const e = await created(gpuBody());
    const root = `https://api.example.test/v2/${e.id}`;
    assert.deepEqual(e.requestUrls, {
      run: `${root}/run`,
      runSync: `${root}/runsync`,
      status: `${root}/status/{job_id}`,
      stream: `${root}/stream/{job_id}`,
      cancel: `${root}/cancel/{job_id}`,
      retry: `${root}/retry/{job_id}`,
      purgeQueue: `${root}/purge-queue`,
      health: `${root}/health`,
    });
  });

  test('load-balancing endpoints get their own host and the health path from env', async () => {
    const e = await created(
      gpuBody({ type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 2 }, env: { HEALTH_CHECK_PATH: '/healthz' } }),
    );
    assert.deepEqual(e.requestUrls, { base: `https://${e.id}.lb.example.test`, health: `https://${e.id}.lb.example.test/healthz` });
    const plain = await created(gpuBody({ type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 2 } }));
    assert.equal(plain.requestUrls.health, `https://${plain.id}.lb.example.test/ping`);
  });

  test('CPU endpoints list their configurations in order with memory from the flavor', async () => {
    const e = await created(
      cpuBody({
        cpu: [
          { id: 'cpu5m', vcpuCount: 8 },
          { id: 'cpu3c', vcpuCount: 4 },
          { id: 'cpu3c', vcpuCount: 8 },
        ],
      }),
    );
    assert.deepEqual(e.cpu, [
      { id: 'cpu5m', vcpuCount: 8, memory: 64 },
      { id: 'cpu3c', vcpuCount: 4, memory: 8 },
      { id: 'cpu3c', vcpuCount: 8, memory: 16 },
    ]);
    assert.equal(e.gpu, null);
  });

  test('the endpoint can be read back exactly as created', async () => {
    const e = await created(
      gpuBody({ env: { A: '1' }, ports: ['8000/http', '22/tcp'], disk: 40, workers: { min: 1, max: 5, idleTimeout: 60 } }),
    );
    const res = await h.call('GET', `/v2/serverless/${e.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), e);
  });
});

describe('create: schema violations answer 422 listing each failure', () => {
  test('unknown properties are rejected at every level', async () => {
    await rejected(
      gpuBody({
        bogus: 1,
        gpu: { pools: ['ADA_24'], extra: true },
        workers: { min: 0, burst: 2 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 2, requestCount: 1 },
      }),
      422,
      [
        'bogus: unknown property',
        'gpu.extra: unknown property',
        'workers.burst: unknown property',
        'scaling.requestCount: unknown property',
      ],
    );
    await rejected(cpuBody({ cpu: [{ id: 'cpu3c', vcpuCount: 4, memory: 8 }] }), 422, ['cpu[0].memory: unknown property']);
  });

  test('type is required and must be QUEUE or LOAD_BALANCER', async () => {
    await rejected(without(gpuBody(), 'type'), 422, ['type: is required']);
    await rejected(gpuBody({ type: 'SERVERLESS' }), 422, ['type: must be one of QUEUE, LOAD_BALANCER']);
  });

  test('name and scaling are required', async () => {
    await rejected(without(without(gpuBody(), 'name'), 'scaling'), 422, ['name: is required', 'scaling: is required']);
    await rejected(gpuBody({ name: '' }), 422, ['name: must NOT have fewer than 1 characters']);
  });

  test('scaling is a discriminated union with bounded values', async () => {
    await rejected(gpuBody({ scaling: { type: 'CPU_LOAD' } }), 422, ['scaling.type: must be one of QUEUE_DELAY, REQUEST_COUNT']);
    await rejected(gpuBody({ scaling: { type: 'QUEUE_DELAY', queueDelay: 0.4 } }), 422, ['scaling.queueDelay: must be >= 0.5']);
    await rejected(gpuBody({ scaling: { type: 'REQUEST_COUNT', requestCount: 0 } }), 422, ['scaling.requestCount: must be >= 1']);
    // Bounded, so every value reads back exactly as an integer (1e30 came back as 1e+30, 2^53 + 1 as 2^53).
    await rejected(gpuBody({ scaling: { type: 'REQUEST_COUNT', requestCount: 1e30 } }), 422, ['scaling.requestCount: must be <= 10000']);
    await rejected(gpuBody({ scaling: { type: 'QUEUE_DELAY', queueDelay: 1e308 } }), 422, ['scaling.queueDelay: must be <= 3600']);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], count: 17 } }), 422, ['gpu.count: must be <= 16']);
    await rejected(gpuBody({ workers: { max: 2 ** 53 } }), 422, ['workers.max: must be <= 100000']);
    await rejected(gpuBody({ scaling: { type: 'REQUEST_COUNT', requestCount: 1.5 } }), 422, ['scaling.requestCount: must be integer']);
    await rejected(gpuBody({ scaling: { type: 'QUEUE_DELAY' } }), 422, ['scaling.queueDelay: is required']);
    await created(gpuBody({ scaling: { type: 'QUEUE_DELAY', queueDelay: 0.5 } }));
  });

  test('a load-balancing endpoint must scale on REQUEST_COUNT', async () => {
    await rejected(gpuBody({ type: 'LOAD_BALANCER' }), 422, ['scaling.type: must be REQUEST_COUNT for a LOAD_BALANCER endpoint']);
  });

  test('image is required unless templateId is set', async () => {
    await rejected(without(gpuBody(), 'image'), 422, ['image: is required unless templateId is set']);
  });

  test('CUDA constraints on a CPU create are rejected with 422', async () => {
    await rejected(cpuBody({ allowedCudaVersions: ['12.8'] }), 422, ['allowedCudaVersions: unknown property']);
    await rejected(cpuBody({ minCudaVersion: '12.1' }), 422, ['minCudaVersion: unknown property']);
  });

  test('workers, disk, gpu.count and vcpuCount bounds', async () => {
    await rejected(gpuBody({ workers: { min: -1, max: 3, idleTimeout: 0 } }), 422, [
      'workers.min: must be >= 0',
      'workers.idleTimeout: must be >= 1',
    ]);
    await rejected(gpuBody({ workers: { idleTimeout: 3601 } }), 422, ['workers.idleTimeout: must be <= 3600']);
    await rejected(gpuBody({ disk: 0 }), 422, ['disk: must be >= 1']);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], count: 0 } }), 422, ['gpu.count: must be >= 1']);
    await rejected(cpuBody({ cpu: [{ id: 'cpu3c', vcpuCount: 1 }] }), 422, ['cpu[0].vcpuCount: must be >= 2']);
  });

  test('exactly duplicate CPU configurations are rejected', async () => {
    await rejected(
      cpuBody({
        cpu: [
          { id: 'cpu3c', vcpuCount: 4 },
          { id: 'cpu3c', vcpuCount: 4 },
        ],
      }),
      422,
      ['cpu[1]: duplicates cpu[0]'],
    );
  });

  test('GPU schema rules: pools non-empty, exclusion pattern and uniqueness, CUDA version format', async () => {
    await rejected(gpuBody({ gpu: { pools: [] } }), 422, ['gpu.pools: must NOT have fewer than 1 items']);
    await rejected(gpuBody({ gpu: { excludedTypes: ['NVIDIA L4'] } }), 422, ['gpu.pools: is required']);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', '-NVIDIA L4', ' -x'] } }), 422, [
      'gpu.excludedTypes[1]: must be a GPU type id, without a leading -',
      'gpu.excludedTypes[2]: must be a GPU type id, without a leading -',
    ]);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', 'NVIDIA L4'] } }), 422, [
      'gpu.excludedTypes[1]: duplicates gpu.excludedTypes[0]',
    ]);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], allowedCudaVersions: ['12'], minCudaVersion: '12.x' } }), 422, [
      'gpu.allowedCudaVersions[0]: must be a CUDA version major.minor, such as 12.4',
      'gpu.minCudaVersion: must be a CUDA version major.minor, such as 12.4',
    ]);
  });
});

describe('create: rule conflicts answer 400', () => {
  test('exactly one of gpu or cpu', async () => {
    await rejected(without(gpuBody(), 'gpu'), 400, ['gpu: one of gpu or cpu is required']);
    await rejected(gpuBody({ cpu: [{ id: 'cpu3c', vcpuCount: 4 }] }), 400, ['cpu: cannot be combined with gpu']);
  });

  test('a non-empty allowedCudaVersions cannot come with minCudaVersion, an empty one can', async () => {
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], allowedCudaVersions: ['12.8'], minCudaVersion: '12.2' } }), 400, [
      'gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions; use one or the other',
    ]);
    const e = await created(gpuBody({ gpu: { pools: ['ADA_24'], allowedCudaVersions: [], minCudaVersion: '12.11' } }));
    assert.equal(e.gpu.minCudaVersion, '12.11');
    assert.deepEqual(e.gpu.allowedCudaVersions, []);
  });

  test('excluded types are trimmed and must belong to the chosen pools, leaving at least one', async () => {
    const e = await created(gpuBody({ gpu: { pools: ['ADA_24', 'ADA_48_PRO'], excludedTypes: ['  NVIDIA L40 ', 'NVIDIA L4'] } }));
    assert.deepEqual(e.gpu.excludedTypes, ['NVIDIA L40', 'NVIDIA L4']);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', 'NVIDIA L40'] } }), 400, [
      "gpu.excludedTypes[1]: 'NVIDIA L40' is not a GPU type in the selected pools (ADA_24)",
    ]);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', 'NVIDIA GeForce RTX 4090'] } }), 400, [
      'gpu.excludedTypes: excludes every GPU type of the selected pools; at least one must remain',
    ]);
    await rejected(gpuBody({ gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', ' NVIDIA L4'] } }), 400, [
      'gpu.excludedTypes[1]: duplicates gpu.excludedTypes[0] after trimming',
    ]);
  });

  test('pools must be serverless pools of the catalog', async () => {
    await rejected(gpuBody({ gpu: { pools: ['ADA_24', 'NVIDIA L4'] } }), 400, [
      "gpu.pools[1]: unknown GPU pool 'NVIDIA L4'; known pools: ADA_24, ADA_48_PRO, AMPERE_80",
    ]);
  });

  test('vcpuCount is a power of two valid for the flavor; the flavor must exist', async () => {
    await rejected(cpuBody({ cpu: [{ id: 'cpu3c', vcpuCount: 6 }] }), 400, ['cpu[0].vcpuCount: must be a power of two']);
    await rejected(
      cpuBody({
        cpu: [
          { id: 'cpu5m', vcpuCount: 2 },
          { id: 'cpu5m', vcpuCount: 32 },
        ],
      }),
      400,
      ['cpu[0].vcpuCount: must be from 4 to 16 for flavor cpu5m', 'cpu[1].vcpuCount: must be from 4 to 16 for flavor cpu5m'],
    );
    await rejected(cpuBody({ cpu: [{ id: 'cpu9z', vcpuCount: 4 }] }), 400, [
      "cpu[0].id: unknown CPU flavor 'cpu9z'; known flavors: cpu3c, cpu5m",
    ]);
  });

  test('idleTimeout is rejected for a queue endpoint scaling on REQUEST_COUNT and omitted from its responses', async () => {
    const scaling = { type: 'REQUEST_COUNT', requestCount: 3 };
    await rejected(gpuBody({ scaling, workers: { idleTimeout: 30 } }), 400, [
      'workers.idleTimeout: does not apply to a QUEUE endpoint scaling on REQUEST_COUNT; leave it out',
    ]);
    const e = await created(gpuBody({ scaling, workers: { min: 1, max: 4 } }));
    assert.deepEqual(e.workers, { min: 1, max: 4 });
    const lb = await created(gpuBody({ type: 'LOAD_BALANCER', scaling, workers: { idleTimeout: 30 } }));
    assert.deepEqual(lb.workers, { min: 0, max: 3, idleTimeout: 30 });
  });

  test('workers.min cannot exceed workers.max', async () => {
    await rejected(gpuBody({ workers: { min: 4 } }), 400, ['workers.min: must not exceed workers.max (3)']);
  });

  test('unknown data centers and network volumes are named', async () => {
    await rejected(gpuBody({ dataCenterIds: ['US-TX-3', 'MARS-1', 'US-TX-3'], networkVolumes: ['vol_1'] }), 400, [
      "dataCenterIds[1]: unknown data center 'MARS-1'; known: LOCAL, US-TX-3, EU-RO-1",
      'dataCenterIds[2]: duplicates dataCenterIds[0]',
      "networkVolumes[0]: unknown network volume 'vol_1'",
    ]);
    const e = await created(gpuBody({ dataCenterIds: ['EU-RO-1'] }));
    assert.deepEqual(e.dataCenterIds, ['EU-RO-1']);
  });

  test('ports are port/protocol, env names are valid, and PORT values are ports', async () => {
    await rejected(gpuBody({ ports: ['8000/http', '8000', '70000/tcp', '8000/http'], env: { 'BAD-NAME': 'x', PORT: 'eighty' } }), 400, [
      "ports[1]: '8000' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp",
      "ports[2]: '70000/tcp' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp",
      'ports[3]: duplicates ports[0]',
      'env.BAD-NAME: must be a valid environment variable name (letters, digits and _, not starting with a digit)',
      'env.PORT: must be a port number from 1 to 65535',
    ]);
  });

  test('a health check path must be a URL path: one the health URL could not hold is refused, never stored', async () => {
    const lb = (path: string) =>
      gpuBody({
        name: `lb-${path}`,
        type: 'LOAD_BALANCER',
        scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
        env: { HEALTH_CHECK_PATH: path },
      });
    const before = (await h.call('GET', '/v2/serverless')).json().length as number;
    for (const path of ['/a|b', '/a"b', '/a{b}', '/%zz', '/a<b>', '/h\u00e9alth', 'healthz?x', '/a b', '']) {
      await rejected(lb(path), 400, [
        "env.HEALTH_CHECK_PATH: must be a URL path such as /ping: letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes",
      ]);
    }
    assert.equal((await h.call('GET', '/v2/serverless')).json().length, before, 'a refused endpoint was stored');
    const e = await created(lb('/v1/health%20check;ok'));
    assert.equal(e.requestUrls.health, `https://${e.id}.lb.example.test/v1/health%20check;ok`);
    const changed = await h.call('PATCH', `/v2/serverless/${e.id}`, { env: { HEALTH_CHECK_PATH: '/a|b' } });
    assert.equal(changed.statusCode, 400, changed.body);
    assert.equal((await h.call('GET', `/v2/serverless/${e.id}`)).json().env.HEALTH_CHECK_PATH, '/v1/health%20check;ok');
  });

  test('all rule violations of one request come back together', async () => {
    const p = await rejected(cpuBody({ cpu: [{ id: 'cpu3c', vcpuCount: 6 }], workers: { min: 9 }, dataCenterIds: ['X'] }), 400, [
      'cpu[0].vcpuCount: must be a power of two',
      'workers.min: must not exceed workers.max (3)',
      "dataCenterIds[0]: unknown data center 'X'; known: LOCAL, US-TX-3, EU-RO-1",
    ]);
    assert.equal(p.title, 'Bad Request');
  });
});

describe('create: args, entrypoint and cmd', () => {
  test('a shell string is split into CMD words and kept exactly as sent', async () => {
    const e = await created(gpuBody({ args: `python -u "my handler.py" --name 'a b' c\\ d` }));
    assert.equal(e.args, `python -u "my handler.py" --name 'a b' c\\ d`);
    assert.deepEqual(e.entrypoint, []);
    assert.deepEqual(e.cmd, ['python', '-u', 'my handler.py', '--name', 'a b', 'c d']);
  });

  test('a JSON object string sets entrypoint and cmd', async () => {
    const args = JSON.stringify({ entrypoint: ['/bin/sh', '-c'], cmd: ['echo hi'] });
    const e = await created(gpuBody({ args }));
    assert.deepEqual([e.args, e.entrypoint, e.cmd], [args, ['/bin/sh', '-c'], ['echo hi']]);
    const onlyEntrypoint = await created(gpuBody({ args: '{"entrypoint":["/start.sh"]}' }));
    assert.deepEqual([onlyEntrypoint.entrypoint, onlyEntrypoint.cmd], [['/start.sh'], []]);
  });

  test('exec-form fields are encoded into args', async () => {
    const cmdOnly = await created(gpuBody({ cmd: ['python', 'my handler.py'] }));
    assert.equal(cmdOnly.args, "python 'my handler.py'");
    const both = await created(gpuBody({ entrypoint: ['/bin/sh', '-c'], cmd: ['run.sh'] }));
    assert.equal(both.args, '{"entrypoint":["/bin/sh","-c"],"cmd":["run.sh"]}');
  });

  test('sending back what was read is accepted; a disagreement is not', async () => {
    const first = await created(gpuBody({ args: 'python handler.py' }));
    const echoed = await created(gpuBody({ args: first.args, entrypoint: first.entrypoint, cmd: first.cmd }));
    assert.deepEqual([echoed.args, echoed.entrypoint, echoed.cmd], [first.args, first.entrypoint, first.cmd]);
    await rejected(gpuBody({ args: 'python handler.py', cmd: ['python', 'other.py'] }), 400, [
      'cmd: does not match args, which gives cmd ["python","handler.py"]',
    ]);
    await rejected(gpuBody({ args: 'python handler.py', entrypoint: ['/bin/sh'] }), 400, [
      'entrypoint: does not match args, which gives entrypoint []',
    ]);
  });

  test('malformed args are named', async () => {
    await rejected(gpuBody({ args: 'python "unclosed' }), 400, ['args: cannot be split into arguments: Got EOF while in a quoted string']);
    await rejected(gpuBody({ args: '{"entrypoint": [1], "shell": true}' }), 400, [
      'args.shell: unknown key; a JSON args object holds only entrypoint and cmd',
      'args.entrypoint: must be an array of strings',
    ]);
    await rejected(gpuBody({ args: '{not json' }), 400, ['args: looks like a JSON object but is not valid JSON']);
  });
});
