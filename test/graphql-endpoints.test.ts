// Endpoint operations over GraphQL as the SDK sends them (create_endpoint, get_endpoints,
// saveEndpoint with an id, update_endpoint_template, deleteEndpoint), with REST v2 reading back
// the same endpoints and GraphQL listing the ones REST made.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { graphql, sdkCreateEndpoint, sdkCreateTemplate, SDK_GET_ENDPOINTS } from './support/graphql-clients.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { data, firstError, h, unique, useGraphqlHarness, type Row } from './support/graphql-harness.js';

useGraphqlHarness();

async function serverlessTemplate(extra: Record<string, unknown> = {}): Promise<string> {
  const made = await data(
    sdkCreateTemplate({ name: unique('tpl'), imageName: 'acme/worker:1', isServerless: true, env: { MODE: 'fast' }, ...extra }),
  );
  return (made.saveTemplate as Row).id as string;
}

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
    // gpuIds is one comma-separated string: REST's array indexes would point at the wrong entry.
    assert.ok(
      error.extensions.errors?.some((line) => line.startsWith("gpuIds: unknown GPU pool 'NOPE_99'")),
      JSON.stringify(error),
    );
    assert.ok(error.extensions.errors?.includes('workersMin: must not exceed workersMax (2)'), JSON.stringify(error));
    const excluded = firstError((await graphql(h, sdkCreateEndpoint({ name, templateId, gpuIds: 'AMPERE_16,ADA_24,-NVIDIA A40' }))).json());
    assert.ok(
      excluded.extensions.errors?.some((line) => line.startsWith("gpuIds: 'NVIDIA A40' is not a GPU type in the selected pools")),
      JSON.stringify(excluded),
    );
    const endpoints = (await h.call('GET', '/v2/serverless')).json().endpoints as { name: string }[];
    assert.ok(!endpoints.some((e) => e.name === name));
    const missing = firstError(
      (await graphql(h, 'mutation { saveEndpoint(input: {name: "no-template", gpuIds: "AMPERE_16"}) { id } }')).json(),
    );
    assert.match(missing.message, /templateId: is required/);
  });

  test('failures of the env list name its entries, and a GPU count sent to a CPU endpoint names gpuCount', async () => {
    const templateId = await serverlessTemplate();
    const env = '[{key: "A", value: "1"}, {key: "A B", value: "2"}, {key: "9LIVES", value: "3"}]';
    const created = firstError(
      (
        await graphql(
          h,
          `mutation { saveEndpoint(input: {name: "${unique('env')}", templateId: "${templateId}", gpuIds: "AMPERE_16", env: ${env}}) { id } }`,
        )
      ).json(),
    );
    const lines = created.extensions.errors ?? [];
    assert.ok(
      lines.some((line) => line.startsWith('env[1]: must be a valid environment variable name')),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.some((line) => line.startsWith('env[2]: must be a valid environment variable name')),
      JSON.stringify(lines),
    );
    assert.ok(!lines.some((line) => line.startsWith('env.') || line.startsWith('env[0]')), JSON.stringify(lines));

    const cpu = await h.call('POST', '/v2/serverless', queueEndpointBody(unique('cpu')));
    assert.equal(cpu.statusCode, 201, cpu.body);
    const id = cpu.json().id as string;
    const count = firstError((await graphql(h, `mutation { saveEndpoint(input: {id: "${id}", gpuCount: 2}) { id } }`)).json());
    assert.ok(
      count.extensions.errors?.some((line) => line.startsWith('gpuCount: ')),
      JSON.stringify(count),
    );
    const ids = firstError(
      (await graphql(h, `mutation { saveEndpoint(input: {id: "${id}", gpuIds: "AMPERE_16", gpuCount: 2}) { id } }`)).json(),
    );
    assert.ok(
      ids.extensions.errors?.some((line) => line.startsWith('gpuIds: ')),
      JSON.stringify(ids),
    );
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

  test("myself lists the account's network volumes, and an endpoint shows its own", async () => {
    const volume = await h.call('POST', '/v2/network-volumes', { name: unique('vol'), size: 10, dataCenter: 'LOCAL' });
    assert.equal(volume.statusCode, 201, volume.body);
    const volumeId = volume.json().id as string;
    const listed = (await data('query { myself { networkVolumes { id name size dataCenterId } } }')).myself as Row;
    assert.deepEqual(listed.networkVolumes, [{ id: volumeId, name: volume.json().name, size: 10, dataCenterId: 'LOCAL' }]);
    const made = (
      await data(
        `mutation { saveEndpoint(input: { name: "${unique('with-volume')}", templateId: "${await serverlessTemplate()}", gpuIds: "ADA_24", networkVolumeId: "${volumeId}" }) { networkVolumeId networkVolume { id size dataCenterId } } }`,
      )
    ).saveEndpoint as Row;
    assert.deepEqual(made, { networkVolumeId: volumeId, networkVolume: { id: volumeId, size: 10, dataCenterId: 'LOCAL' } });
  });
});
