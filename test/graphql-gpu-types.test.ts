// The SDK's GPU type operations over GraphQL (get_gpus, get_gpu), in its own document shapes,
// agreeing with the REST catalog.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { data, firstError, h, useGraphqlHarness, type Row } from './support/graphql-harness.js';
import { graphql } from './support/graphql-clients.js';

useGraphqlHarness();

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

  test('an unknown or empty id gives an empty list (the SDK raises ValueError on it)', async () => {
    assert.deepEqual((await data('query GpuTypes { gpuTypes(input: {id: "NVIDIA H9000"}) { id } }')).gpuTypes, []);
    assert.deepEqual((await data('query GpuTypes { gpuTypes(input: {id: ""}) { id } }')).gpuTypes, []);
  });

  test('lowestPrice of no GPUs or fewer is refused', async () => {
    for (const count of [0, -1]) {
      const answer = (
        await graphql(
          h,
          `query { gpuTypes(input: {id: "NVIDIA L4"}) { lowestPrice(input: {gpuCount: ${count}}) { uninterruptablePrice } } }`,
        )
      ).json();
      assert.equal(firstError(answer).extensions.code, 'BAD_USER_INPUT', String(count));
      assert.match(firstError(answer).message, /gpuCount: must be at least 1/);
    }
  });
});
