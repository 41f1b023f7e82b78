// Every operation the SDK and runpodctl send that Gantry offers, in the clients' own document
// shapes, read the way the SDK indexes them; and REST v2 and GraphQL agreeing on what exists.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './support/harness.js';
import {
  graphql,
  sdkCreateEndpoint,
  sdkCreateTemplate,
  sdkRead,
  sdkUpdateUserSettings,
  SDK_GET_ENDPOINTS,
  SDK_GET_USER,
} from './support/graphql-clients.js';
import { anSshKey } from './support/ssh-keys.js';

let h: Harness;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

interface Row {
  [field: string]: unknown;
}
const data = async (query: string, options: Parameters<typeof graphql>[2] = {}) => sdkRead(await graphql(h, query, options));

async function serverlessTemplate(extra: Record<string, unknown> = {}): Promise<string> {
  const made = await data(
    sdkCreateTemplate({ name: unique('tpl'), imageName: 'acme/worker:1', isServerless: true, env: { MODE: 'fast' }, ...extra }),
  );
  return (made.saveTemplate as Row).id as string;
}

function firstError(body: { errors?: { message: string; path?: string[]; extensions: { code: string; errors?: string[] } }[] }) {
  assert.ok(body.errors?.[0], JSON.stringify(body));
  return body.errors[0];
}

describe('gpuTypes', () => {
  test("get_gpus lists the catalog; get_gpu reads one with the SDK's full selection, agreeing with REST", async () => {
    const listed = (await data('query GpuTypes { gpuTypes { id displayName memoryInGb } }')).gpuTypes as Row[];
    const rest = (await h.call('GET', '/v2/catalog/gpus')).json();
    const restGpus = (Array.isArray(rest) ? rest : rest.gpus) as { id: string; name: string; memory: number }[];
    assert.deepEqual(
      listed,
      restGpus.map((g) => ({ id: g.id, displayName: g.name, memoryInGb: g.memory })),
    );

    const id = 'NVIDIA GeForce RTX 4090';
    const gpu = (
      await data(`query GpuTypes { gpuTypes(input: {id: "${id}"}) { maxGpuCount id displayName manufacturer memoryInGb cudaCores
      secureCloud communityCloud securePrice communityPrice oneMonthPrice threeMonthPrice oneWeekPrice communitySpotPrice secureSpotPrice
      lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice } } }`)
    ).gpuTypes as Row[];
    const fromRest = (await h.call('GET', `/v2/catalog/gpus/${encodeURIComponent(id)}`)).json();
    assert.equal(gpu.length, 1);
    assert.equal(gpu[0]!.id, id);
    assert.equal(gpu[0]!.displayName, fromRest.name);
    assert.equal(gpu[0]!.securePrice, fromRest.secure ? fromRest.price.secure : null);
    assert.equal(gpu[0]!.communityPrice, fromRest.community ? fromRest.price.community : null);
    assert.equal(gpu[0]!.maxGpuCount, Math.max(fromRest.maxCount.secure, fromRest.maxCount.community));
    const lowest = gpu[0]!.lowestPrice as Row;
    assert.equal(lowest.minimumBidPrice, null);
    assert.equal(
      lowest.uninterruptablePrice,
      Math.min(
        ...[fromRest.secure && fromRest.price.secure, fromRest.community && fromRest.price.community].filter((p) => typeof p === 'number'),
      ),
    );
  });

  test('an unknown id gives an empty list (the SDK raises ValueError on it)', async () => {
    assert.deepEqual((await data('query GpuTypes { gpuTypes(input: {id: "NVIDIA H9000"}) { id } }')).gpuTypes, []);
  });
});

describe('templates', () => {
  test('create_template makes the template REST reads back field for field', async () => {
    const name = unique('sdk-template');
    const made = (
      await data(
        sdkCreateTemplate({
          name,
          imageName: 'acme/app:2',
          dockerStartCmd: 'python -c "print(1)"',
          containerDiskInGb: 20,
          volumeInGb: 5,
          volumeMountPath: '/data',
          ports: '8888/http, 22/tcp',
          env: { A: '1', B: 'two' },
        }),
      )
    ).saveTemplate as Row;
    assert.deepEqual(
      { ...made, id: undefined },
      {
        id: undefined,
        name,
        imageName: 'acme/app:2',
        dockerArgs: 'python -c "print(1)"',
        containerDiskInGb: 20,
        volumeInGb: 5,
        volumeMountPath: '/data',
        ports: '8888/http,22/tcp',
        env: [
          { key: 'A', value: '1' },
          { key: 'B', value: 'two' },
        ],
        isServerless: false,
      },
    );
    const rest = (await h.call('GET', `/v2/templates/${String(made.id)}`)).json();
    assert.equal(rest.image, 'acme/app:2');
    assert.equal(rest.args, 'python -c "print(1)"');
    assert.equal(rest.disk, 20);
    assert.deepEqual(rest.mounts, { persistent: { size: 5, path: '/data' } });
    assert.deepEqual(rest.ports, ['8888/http', '22/tcp']);
    assert.deepEqual(rest.env, { A: '1', B: 'two' });
    assert.equal(rest.registry, null);
    assert.equal(rest.serverless, false);
  });

  test('a template made over REST is listed by myself and changed by saveTemplate with its id', async () => {
    const created = (
      await h.call('POST', '/v2/templates', { name: unique('rest-template'), image: 'acme/rest:1', serverless: true })
    ).json();
    const listed = (await data('query { myself { podTemplates { id name imageName isServerless } } }')).myself as Row;
    assert.ok((listed.podTemplates as Row[]).some((t) => t.id === created.id && t.imageName === 'acme/rest:1' && t.isServerless === true));
    await data(`mutation { saveTemplate(input: { id: "${created.id}", imageName: "acme/rest:2", containerDiskInGb: 15 }) { id } }`);
    const rest = (await h.call('GET', `/v2/templates/${created.id}`)).json();
    assert.deepEqual([rest.image, rest.disk, rest.name], ['acme/rest:2', 15, created.name]);
  });

  test('a name used twice is a CONFLICT; deleteTemplate removes by name', async () => {
    const name = unique('named');
    await data(sdkCreateTemplate({ name, imageName: 'x/y:1' }));
    const again = (await graphql(h, sdkCreateTemplate({ name, imageName: 'x/y:1' }))).json();
    assert.equal(firstError(again).extensions.code, 'CONFLICT');
    assert.deepEqual(firstError(again).path, ['saveTemplate']);
    assert.deepEqual(await data(`mutation { deleteTemplate(templateName: "${name}") }`), { deleteTemplate: true });
    const templates = (await h.call('GET', '/v2/templates')).json().templates as { name: string }[];
    assert.ok(!templates.some((t) => t.name === name));
    assert.equal(
      firstError((await graphql(h, `mutation { deleteTemplate(templateName: "${name}") }`)).json()).extensions.code,
      'NOT_FOUND',
    );
  });

  test('field failures name the GraphQL fields the input used', async () => {
    const body = (await graphql(h, sdkCreateTemplate({ name: unique('bad'), imageName: '', containerDiskInGb: 0 }))).json();
    const error = firstError(body);
    assert.equal(error.extensions.code, 'BAD_USER_INPUT');
    assert.deepEqual(error.extensions.errors?.map((line) => line.split(':')[0]).sort(), ['containerDiskInGb', 'imageName']);
    assert.match(error.message, /containerDiskInGb: /);
  });
});

describe('endpoints', () => {
  test("create_endpoint makes a queue endpoint REST reads back, with the template's settings", async () => {
    const templateId = await serverlessTemplate();
    const name = unique('sdk-endpoint');
    const made = (
      await data(
        sdkCreateEndpoint({
          name,
          templateId,
          gpuIds: 'AMPERE_16,AMPERE_24',
          locations: 'US-TX-3',
          flashboot: true,
          allowedCudaVersions: '12.4,12.5',
          workersMax: 2,
          idleTimeout: 7,
        }),
      )
    ).saveEndpoint as Row;
    assert.deepEqual(
      { ...made, id: undefined },
      {
        id: undefined,
        name,
        templateId,
        gpuIds: 'AMPERE_16,AMPERE_24',
        networkVolumeId: null,
        locations: 'US-TX-3',
        idleTimeout: 7,
        scalerType: 'QUEUE_DELAY',
        scalerValue: 4,
        workersMin: 0,
        workersMax: 2,
        allowedCudaVersions: '12.4,12.5',
        gpuCount: 1,
        flashBootType: 'FLASHBOOT',
      },
    );
    const rest = (await h.call('GET', `/v2/serverless/${String(made.id)}`)).json();
    assert.equal(rest.type, 'QUEUE');
    assert.equal(rest.image, 'acme/worker:1');
    assert.deepEqual(rest.env, { MODE: 'fast' });
    assert.deepEqual(rest.gpu, {
      pools: ['AMPERE_16', 'AMPERE_24'],
      excludedTypes: [],
      count: 1,
      allowedCudaVersions: ['12.4', '12.5'],
      minCudaVersion: null,
    });
    assert.deepEqual(rest.workers, { min: 0, max: 2, idleTimeout: 7 });
    assert.deepEqual(rest.scaling, { type: 'QUEUE_DELAY', queueDelay: 4 });
    assert.deepEqual(rest.dataCenterIds, ['US-TX-3']);
    assert.equal(rest.flashboot, 'FLASHBOOT');
  });

  test('REQUEST_COUNT with the idleTimeout the SDK always sends is accepted; the timeout is dropped', async () => {
    const made = (
      await data(
        sdkCreateEndpoint({ name: unique('rc'), templateId: await serverlessTemplate(), scalerType: 'REQUEST_COUNT', scalerValue: 3 }),
      )
    ).saveEndpoint as Row;
    const rest = (await h.call('GET', `/v2/serverless/${String(made.id)}`)).json();
    assert.deepEqual(rest.scaling, { type: 'REQUEST_COUNT', requestCount: 3 });
    assert.deepEqual(rest.workers, { min: 0, max: 3 });
  });

  test('get_endpoints lists REST-made endpoints too, with every field the SDK selects', async () => {
    const restMade = (
      await h.call('POST', '/v2/serverless', {
        name: unique('rest-endpoint'),
        type: 'QUEUE',
        image: 'acme/rest:1',
        gpu: { pools: ['AMPERE_24'], excludedTypes: ['NVIDIA L4'] },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
        env: { K: 'V' },
      })
    ).json();
    const endpoints = ((await data(SDK_GET_ENDPOINTS)).myself as Row).endpoints as Row[];
    const listed = endpoints.find((e) => e.id === restMade.id);
    assert.deepEqual(
      { ...listed, createdAt: undefined },
      {
        aiKey: null,
        gpuIds: 'AMPERE_24,-NVIDIA L4',
        id: restMade.id,
        idleTimeout: restMade.workers.idleTimeout,
        name: restMade.name,
        networkVolumeId: null,
        locations: '',
        scalerType: 'QUEUE_DELAY',
        scalerValue: 2,
        templateId: null,
        type: 'QUEUE',
        userId: h.adminAccountId,
        version: restMade.version,
        workersMax: restMade.workers.max,
        workersMin: 0,
        workersStandby: null,
        gpuCount: 1,
        env: [{ key: 'K', value: 'V' }],
        createdAt: undefined,
        networkVolume: null,
      },
    );
    assert.equal(listed!.createdAt, restMade.createdAt);
  });

  test('saveEndpoint with an id changes only what it sends; REST sees the change', async () => {
    const made = (await data(sdkCreateEndpoint({ name: unique('to-change'), templateId: await serverlessTemplate(), workersMax: 3 })))
      .saveEndpoint as Row;
    const changed = (
      await data(`mutation { saveEndpoint(input: { id: "${String(made.id)}", workersMax: 5, scalerValue: 9, locations: "EU-RO-1" }) {
      id workersMax scalerType scalerValue locations gpuIds } }`)
    ).saveEndpoint as Row;
    assert.deepEqual(changed, {
      id: made.id,
      workersMax: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 9,
      locations: 'EU-RO-1',
      gpuIds: 'AMPERE_16',
    });
    const rest = (await h.call('GET', `/v2/serverless/${String(made.id)}`)).json();
    assert.deepEqual([rest.workers.max, rest.scaling.queueDelay, rest.dataCenterIds], [5, 9, ['EU-RO-1']]);
  });

  test('update_endpoint_template applies the template and templateId reads back', async () => {
    const made = (await data(sdkCreateEndpoint({ name: unique('retemplated'), templateId: await serverlessTemplate() })))
      .saveEndpoint as Row;
    const next = await serverlessTemplate({ imageName: 'acme/worker:2', env: { MODE: 'slow' } });
    const updated = await data(
      `mutation { updateEndpointTemplate(input: {templateId: "${next}", endpointId: "${String(made.id)}"}) { id templateId } }`,
    );
    assert.deepEqual(updated, { updateEndpointTemplate: { id: made.id, templateId: next } });
    const rest = (await h.call('GET', `/v2/serverless/${String(made.id)}`)).json();
    assert.deepEqual([rest.image, rest.env], ['acme/worker:2', { MODE: 'slow' }]);
    const listed = (((await data(SDK_GET_ENDPOINTS)).myself as Row).endpoints as Row[]).find((e) => e.id === made.id);
    assert.equal(listed!.templateId, next);
  });

  test('rule failures come back as the SDK reads them, naming GraphQL fields; nothing is made', async () => {
    const templateId = await serverlessTemplate();
    const name = unique('refused');
    const body = (await graphql(h, sdkCreateEndpoint({ name, templateId, gpuIds: 'NOPE_99', workersMax: 2, workersMin: 3 }))).json();
    const error = firstError(body);
    assert.deepEqual(error.path, ['saveEndpoint']);
    assert.equal(error.extensions.code, 'BAD_USER_INPUT');
    assert.ok(
      error.extensions.errors?.some((line) => line.startsWith("gpuIds[0]: unknown GPU pool 'NOPE_99'")),
      JSON.stringify(error),
    );
    assert.ok(
      error.extensions.errors?.some((line) => line.startsWith('workersMin: must not exceed')),
      JSON.stringify(error),
    );
    const endpoints = (await h.call('GET', '/v2/serverless')).json().endpoints as { name: string }[];
    assert.ok(!endpoints.some((e) => e.name === name));
    const missing = firstError(
      (await graphql(h, 'mutation { saveEndpoint(input: {name: "no-template", gpuIds: "AMPERE_16"}) { id } }')).json(),
    );
    assert.match(missing.message, /templateId: is required/);
  });

  test('deleteEndpoint removes it for REST too; an unknown id is NOT_FOUND', async () => {
    const made = (await data(sdkCreateEndpoint({ name: unique('to-delete'), templateId: await serverlessTemplate() }))).saveEndpoint as Row;
    assert.deepEqual(await data(`mutation { deleteEndpoint(id: "${String(made.id)}") }`), { deleteEndpoint: true });
    assert.equal((await h.call('GET', `/v2/serverless/${String(made.id)}`)).statusCode, 404);
    assert.equal(
      firstError((await graphql(h, `mutation { deleteEndpoint(id: "${String(made.id)}") }`)).json()).extensions.code,
      'NOT_FOUND',
    );
  });
});

describe('container registry credentials', () => {
  test('create, rotate and delete as the SDK does; REST and the runtime see each step', async () => {
    const name = unique('registry');
    const saved = (
      await data(
        `mutation SaveRegistryAuth { saveRegistryAuth(input: {name: "${name}", username: "alice", password: "first"}) { id name } }`,
      )
    ).saveRegistryAuth as Row;
    assert.equal(saved.name, name);
    assert.deepEqual((await h.call('GET', `/v2/registries/${String(saved.id)}`)).json(), saved);
    const endpoint = (
      await h.call('POST', '/v2/serverless', {
        name: unique('private'),
        type: 'QUEUE',
        image: 'registry.example.com/p:1',
        registry: saved.id,
        gpu: { pools: ['AMPERE_16'] },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
      })
    ).json();

    const rotated = await data(
      `mutation UpdateRegistryAuth { updateRegistryAuth(input: {id: "${String(saved.id)}", username: "bob", password: "second"}) { id name } }`,
    );
    assert.deepEqual(rotated, { updateRegistryAuth: saved });
    const login = await h.services.registryAuths.loginFor(endpoint.id);
    assert.deepEqual([login?.username, login?.password], ['bob', 'second']);

    const refused = firstError((await graphql(h, `mutation { deleteRegistryAuth(registryAuthId: "${String(saved.id)}") }`)).json());
    assert.equal(refused.extensions.code, 'BAD_USER_INPUT');
    assert.match(refused.message, new RegExp(`in use by endpoint ${endpoint.id}`));
    await h.call('DELETE', `/v2/serverless/${endpoint.id}`);
    assert.deepEqual(await data(`mutation { deleteRegistryAuth(registryAuthId: "${String(saved.id)}") }`), { deleteRegistryAuth: true });
    assert.equal((await h.call('GET', `/v2/registries/${String(saved.id)}`)).statusCode, 404);
  });

  test('a credential of another account cannot be rotated: NOT_FOUND', async () => {
    const theirs = await h.newKey({ accountName: 'registry-stranger' });
    const saved = (
      await data(`mutation { saveRegistryAuth(input: {name: "theirs", username: "u", password: "p"}) { id } }`, { key: theirs })
    ).saveRegistryAuth as Row;
    const error = firstError(
      (await graphql(h, `mutation { updateRegistryAuth(input: {id: "${String(saved.id)}", username: "x", password: "y"}) { id } }`)).json(),
    );
    assert.equal(error.extensions.code, 'NOT_FOUND');
  });
});

describe('SSH keys', () => {
  test('runpod ssh add-key: get_user reads pubKey, appends, update_user_settings writes it; REST reads the same keys', async () => {
    const key = await h.newKey({ accountName: 'ssh-graphql' });
    const first = anSshKey('laptop');
    const current = ((await data(SDK_GET_USER, { key })).myself as Row).pubKey as string;
    assert.equal(current, '');
    const written = await data(sdkUpdateUserSettings(`${current}\n\n${first}`), { key });
    assert.deepEqual((written.updateUserSettings as Row).pubKey as string, first);
    const second = anSshKey('desktop');
    await data(sdkUpdateUserSettings(`${first}\n\n${second}`), { key });
    assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [first, second] });

    const third = anSshKey('ci');
    await h.call('PUT', '/v2/account/ssh-keys', { keys: [third] }, key);
    assert.equal(((await data(SDK_GET_USER, { key, client: 'runpodctl' })).myself as Row).pubKey, third);
  });

  test('a line that is not a key is refused naming it; the keys stay as they were', async () => {
    const key = await h.newKey({ accountName: 'ssh-graphql-bad' });
    const kept = anSshKey('kept');
    await data(sdkUpdateUserSettings(kept), { key });
    const error = firstError((await graphql(h, sdkUpdateUserSettings(`${kept}\nssh-rsa not-a-key`), { key })).json());
    assert.equal(error.extensions.code, 'BAD_USER_INPUT');
    assert.ok(error.extensions.errors?.[0]?.startsWith('pubKey[1]: '), JSON.stringify(error));
    assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [kept] });
  });
});
