// Legacy GraphQL pod creates whose input is refused before any pod is made, with the GraphQL
// field named: these checks run wherever Gantry runs, Docker or not.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firstError, h, useGraphqlHarness } from './support/graphql-harness.js';
import { graphql } from './support/graphql-clients.js';

useGraphqlHarness();

const refusal = async (mutation: string) => {
  const error = firstError((await graphql(h, mutation)).json());
  assert.equal(error.extensions.code, 'BAD_USER_INPUT', JSON.stringify(error));
  return error.extensions.errors as string[];
};

describe('pod inputs', () => {
  test('a negative volumeInGb is refused, not taken as no volume', async () => {
    assert.deepEqual(
      await refusal(
        'mutation { podFindAndDeployOnDemand(input: { name: "neg", imageName: "img", gpuTypeId: "NVIDIA L4", volumeInGb: -5 }) { id } }',
      ),
      ['volumeInGb: must be >= 10'],
    );
  });

  test("a CPU instance id's memory must be the flavor's for its vCPUs", async () => {
    assert.deepEqual(
      await refusal('mutation { deployCpuPod(input: { name: "mem", imageName: "img", instanceId: "cpu3c-2-99" }) { id } }'),
      ['instanceId: 2 vCPUs of cpu3c come with 4 GB of memory, not 99; use cpu3c-2-4'],
    );
  });
});
