// The catalog over HTTP, with availability from declared capacity.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';
import { addRegistry } from './support/registries.js';
import { loadCatalog } from '../src/catalog/catalog.js';
import { loadCapacity } from '../src/catalog/capacity.js';

const dir = mkdtempSync(join(tmpdir(), 'gantry-capacity-'));
const capacityFile = join(dir, 'capacity.json');
writeFileSync(
  capacityFile,
  JSON.stringify({
    gpus: [
      { type: 'NVIDIA GeForce RTX 4090', count: 4, cudaVersion: '12.11', dataCenterId: 'US-TX-3' },
      { type: 'NVIDIA GeForce RTX 4090', count: 1, cudaVersion: '12.2', dataCenterId: 'EU-RO-1' },
      { type: 'NVIDIA L4', count: 2, cudaVersion: '12.4', dataCenterId: 'US-TX-3' },
    ],
    cpus: [{ vcpus: 8, dataCenterId: 'EU-RO-1', flavors: ['cpu3c'] }],
  }),
);

let h: Harness;
let bare: Harness;
before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG, capacityFile });
  bare = await startHarness({ catalogFile: FIXTURE_CATALOG });
});
after(async () => {
  await h.close();
  await bare.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (url: string, harness = h) => {
  const res = await harness.call('GET', url);
  return { status: res.statusCode, body: res.statusCode < 300 ? res.json() : problem(res) };
};

describe('GPU types', () => {
  test('list and get carry id, pool and prices, without availability unless asked', async () => {
    const { status, body } = await get('/v2/catalog/gpus');
    assert.equal(status, 200);
    assert.equal(body.gpus.length, 6);
    const rtx = body.gpus.find((g: { id: string }) => g.id === 'NVIDIA GeForce RTX 4090');
    assert.deepEqual(rtx, {
      id: 'NVIDIA GeForce RTX 4090',
      name: 'RTX 4090',
      pool: 'ADA_24',
      manufacturer: 'NVIDIA',
      memory: 24,
      secure: true,
      community: true,
      price: { secure: 0.69, community: 0.34, serverless: 1.1 },
      maxCount: { secure: 8, community: 8 },
    });
    const one = await get(`/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 3070')}`);
    assert.equal(one.body.pool, null);
    assert.equal((await get('/v2/catalog/gpus/nope')).status, 404);
  });

  test('serverless availability comes from free capacity, per data center and CUDA version', async () => {
    const { body } = await get(`/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS`);
    assert.equal(body.availability, 'HIGH');
    assert.deepEqual(body.dataCenters, [
      { id: 'US-TX-3', name: 'US Texas 3', availability: 'HIGH' },
      { id: 'EU-RO-1', name: 'Europe Romania 1', availability: 'LOW' },
    ]);
    assert.deepEqual(body.cudaVersions, [
      { version: '12.2', available: true },
      { version: '12.8', available: false },
      { version: '12.11', available: true },
    ]);
    const pairs = (
      await get(`/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS&count=2`)
    ).body;
    assert.equal(pairs.availability, 'MEDIUM', 'two units of two in Texas; the lone card in Romania makes none');
    const floor = (
      await get(
        `/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS&minCudaVersion=12.8`,
      )
    ).body;
    assert.deepEqual(
      floor.cudaVersions.map((v: { version: string }) => v.version),
      ['12.8', '12.11'],
      '12.11 is above 12.8, compared numerically',
    );
    assert.deepEqual(
      floor.dataCenters.map((d: { id: string }) => d.id),
      ['US-TX-3'],
    );
    const exact = (
      await get(
        `/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS&cudaVersions=12.2`,
      )
    ).body;
    assert.equal(exact.availability, 'LOW');
    const none = (await get(`/v2/catalog/gpus/${encodeURIComponent('NVIDIA L40')}?include=AVAILABILITY&product=SERVERLESS`)).body;
    assert.equal(none.availability, 'NONE');
    assert.equal(none.dataCenters, undefined);
    const pods = (await get(`/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=POD`)).body;
    assert.equal(pods.availability, 'NONE', 'this deployment serves serverless workers only');
  });

  test('countryCodes narrows to data centers in those countries', async () => {
    const { body } = await get('/v2/catalog/gpus?include=AVAILABILITY&product=SERVERLESS&countryCodes=RO');
    assert.deepEqual(
      body.gpus.map((g: { id: string }) => g.id),
      ['NVIDIA GeForce RTX 4090'],
    );
    assert.deepEqual(
      body.gpus[0].dataCenters.map((d: { id: string }) => d.id),
      ['EU-RO-1'],
    );
    assert.equal(body.gpus[0].availability, 'LOW', "Romania's one card: Texas's four do not count");
    assert.deepEqual(
      body.gpus[0].cudaVersions.filter((v: { available: boolean }) => v.available).map((v: { version: string }) => v.version),
      ['12.2'],
    );
  });

  test('without a capacity file there are no GPUs to offer', async () => {
    const { body } = await get(
      `/v2/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}?include=AVAILABILITY&product=SERVERLESS`,
      bare,
    );
    assert.equal(body.availability, 'NONE');
  });

  test('query rules: malformed values 422, misplaced or conflicting ones 400', async () => {
    const cases: [string, number, string[]][] = [
      ['include=AVAILABILITY', 400, ['product: is required with include=AVAILABILITY']],
      ['product=SERVERLESS', 400, ['product: applies only with include=AVAILABILITY']],
      ['count=2', 400, ['count: applies only with include=AVAILABILITY']],
      [
        'include=AVAILABILITY&product=SERVERLESS&cudaVersions=12.8&minCudaVersion=12',
        400,
        ['cudaVersions: cannot be combined with minCudaVersion'],
      ],
      ['include=STOCK&product=SERVERLESS', 422, ["include[0]: 'STOCK' is not one of AVAILABILITY"]],
      ['include=AVAILABILITY&product=SERVERLESS&cudaVersions=12', 422, ["cudaVersions[0]: '12' does not match ^\\d+\\.\\d+$"]],
      ['include=AVAILABILITY&product=SERVERLESS&countryCodes=fr', 422, ["countryCodes[0]: 'fr' does not match ^[A-Z]{2}$"]],
      ['include=AVAILABILITY&product=SERVERLESS&count=0', 422, ["count: '0' does not match ^[1-9]\\d*$"]],
    ];
    for (const [query, status, errors] of cases) {
      const res = await get(`/v2/catalog/gpus?${query}`);
      assert.equal(res.status, status, query);
      assert.deepEqual(res.body.errors, errors, query);
    }
  });
});

describe('CPU flavors and data centers', () => {
  test('CPU availability counts free vCPUs in units of the requested size', async () => {
    const list = (await get('/v2/catalog/cpus')).body.cpus;
    assert.deepEqual(
      list.map((c: { id: string }) => c.id),
      ['cpu3c', 'cpu5m'],
    );
    const small = (await get('/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=SERVERLESS')).body;
    assert.equal(small.availability, 'HIGH');
    assert.deepEqual(small.dataCenters, [{ id: 'EU-RO-1', name: 'Europe Romania 1', availability: 'HIGH' }]);
    const big = (await get('/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=SERVERLESS&vcpuCount=8')).body;
    assert.equal(big.availability, 'LOW');
    const unoffered = (await get('/v2/catalog/cpus/cpu5m?include=AVAILABILITY&product=SERVERLESS')).body;
    assert.equal(unoffered.availability, 'NONE');
    assert.equal((await get('/v2/catalog/cpus/cpu9')).status, 404);
    assert.equal((await get('/v2/catalog/cpus?vcpuCount=4')).status, 400);
  });

  test('a vCPU count no flavor takes is refused; a size a flavor does not come in is not available', async () => {
    for (const count of ['3', '1', '0', '-2', '2.0', 'abc', '9007199254740992']) {
      const res = await get(`/v2/catalog/cpus?include=AVAILABILITY&product=SERVERLESS&vcpuCount=${count}`);
      assert.equal(res.status, 422, count);
      assert.deepEqual(res.body.errors, [`vcpuCount: '${count}' is not a power of two from 2`]);
    }
    const roomy = join(dir, 'roomy.json');
    writeFileSync(roomy, JSON.stringify({ gpus: [], cpus: [{ vcpus: 256, dataCenterId: 'EU-RO-1', flavors: ['cpu3c', 'cpu5m'] }] }));
    const wide = await startHarness({ catalogFile: FIXTURE_CATALOG, capacityFile: roomy });
    try {
      const level = async (flavor: string, count: number) =>
        (await get(`/v2/catalog/cpus/${flavor}?include=AVAILABILITY&product=SERVERLESS&vcpuCount=${count}`, wide)).body.availability;
      // cpu5m comes in 4 to 16 vCPUs, cpu3c in 2 to 32.
      assert.equal(await level('cpu5m', 4), 'HIGH');
      assert.equal(await level('cpu5m', 2), 'NONE');
      assert.equal(await level('cpu5m', 32), 'NONE');
      assert.equal(await level('cpu3c', 32), 'HIGH');
      assert.equal(await level('cpu3c', 64), 'NONE');
    } finally {
      await wide.close();
    }
  });

  test('data centers filter and report GPU and CPU availability', async () => {
    const all = (await get('/v2/catalog/datacenters')).body.dataCenters;
    assert.deepEqual(
      all.map((d: { id: string }) => d.id),
      ['LOCAL', 'US-TX-3', 'EU-RO-1'],
    );
    assert.equal(all[1].gpuAvailability, undefined, 'only when asked');
    const europe = (await get('/v2/catalog/datacenters?regions=EUROPE&compliance=GDPR')).body.dataCenters;
    assert.deepEqual(
      europe.map((d: { id: string }) => d.id),
      ['EU-RO-1'],
    );
    const global = (await get('/v2/catalog/datacenters?globalNetwork=false')).body.dataCenters;
    assert.deepEqual(
      global.map((d: { id: string }) => d.id),
      ['LOCAL'],
    );
    const texas = (await get('/v2/catalog/datacenters/US-TX-3?include=GPU_AVAILABILITY,CPU_AVAILABILITY')).body;
    assert.deepEqual(texas.gpuAvailability, [
      { id: 'NVIDIA GeForce RTX 4090', name: 'RTX 4090', availability: 'HIGH' },
      { id: 'NVIDIA L4', name: 'L4', availability: 'MEDIUM' },
    ]);
    assert.equal(texas.cpuAvailability, undefined, 'no CPU capacity there');
    assert.equal((await get('/v2/catalog/datacenters/MARS-1')).status, 404);
    assert.equal((await get('/v2/catalog/datacenters?regions=MOON')).status, 422);
  });
});

describe('public templates', () => {
  test('official by default; community lists templates other accounts shared, registry hidden', async () => {
    const official = (await get('/v2/catalog/templates')).body.templates;
    assert.deepEqual(
      official.map((t: { id: string }) => t.id),
      ['pubsrvless', 'pubpodtmpl'],
    );
    assert.equal(official[0].serverless, true);
    const other = await h.newKey({ accountName: 'sharer' });
    await h.call('POST', '/v2/templates', { name: 'shared', image: 'x/y', public: true, registry: await addRegistry(h, other) }, other);
    await h.call('POST', '/v2/templates', { name: 'private', image: 'x/z' }, other);
    const community = (await get('/v2/catalog/templates?source=community')).body.templates;
    assert.deepEqual(
      community.map((t: { name: string }) => t.name),
      ['shared'],
    );
    assert.equal(community[0].registry, null);
    assert.equal((await get('/v2/catalog/templates?source=verified')).body.templates.length, 0);
    assert.equal((await get('/v2/catalog/templates?source=everyone')).status, 422);
  });
});

test('a capacity file with mistakes is refused, listing every one', () => {
  const bad = join(dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({
      gpus: [{ type: 'NVIDIA Imaginary', count: 0, cudaVersion: '12', dataCenterId: 'MARS-1' }],
      cpus: { vcpus: -1, flavors: ['cpu0'] },
    }),
  );
  assert.throws(
    () => loadCapacity(bad, loadCatalog(FIXTURE_CATALOG)),
    (error: Error) => {
      for (const part of [
        "gpus[0].type: unknown GPU type 'NVIDIA Imaginary'",
        'gpus[0].count: must be a positive integer',
        'gpus[0].cudaVersion: must be major.minor',
        "gpus[0].dataCenterId: unknown data center 'MARS-1'",
        'cpus.vcpus: must be a non-negative integer',
        "cpus.flavors: unknown CPU flavor 'cpu0'",
      ]) {
        assert.ok(error.message.includes(part), part);
      }
      return true;
    },
  );
});

test('a catalog file with a billing key Gantry does not read is refused, as is one without LOCAL and no capacity file', () => {
  const base = JSON.parse(readFileSync(FIXTURE_CATALOG, 'utf8')) as { billing?: object; dataCenters: { id: string }[] };
  const misspelt = join(dir, 'misspelt-billing.json');
  writeFileSync(misspelt, JSON.stringify({ ...base, billing: { containerDiskPerGBMonth: 0.2, networkVolumePerGbMonth: { ULTRA: 1 } } }));
  assert.throws(
    () => loadCatalog(misspelt),
    (error: Error) => {
      assert.match(error.message, /billing\.containerDiskPerGBMonth: unknown; known: serverlessFrozenPercent, containerDiskPerGbMonth/);
      assert.match(error.message, /billing\.networkVolumePerGbMonth\.ULTRA: unknown; known: STANDARD, HIGH_PERFORMANCE/);
      return true;
    },
  );
  const noLocal = join(dir, 'no-local.json');
  writeFileSync(noLocal, JSON.stringify({ ...base, dataCenters: base.dataCenters.filter((d) => d.id !== 'LOCAL') }));
  assert.throws(
    () => loadCapacity(undefined, loadCatalog(noLocal), () => []),
    /the catalog has no data center LOCAL, where the default capacity is/,
  );
});
