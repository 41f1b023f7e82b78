// Placing workers on capacity: pools in order, exclusions, GPU count, CUDA constraints, data centers, vCPUs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapacityPool, type GpuDevice } from '../src/catalog/capacity-pool.js';
import { loadCatalog } from '../src/catalog/catalog.js';
import type { EndpointSpec } from '../src/domain/endpoint-spec.js';
import { FIXTURE_CATALOG } from './support/harness.js';

const catalog = loadCatalog(FIXTURE_CATALOG);
const device = (deviceId: string, type: string, cudaVersion: string, dataCenterId = 'LOCAL'): GpuDevice => ({
  deviceId,
  type,
  cudaVersion,
  dataCenterId,
});
const gpus = [
  device('0', 'NVIDIA L4', '12.4'),
  device('1', 'NVIDIA GeForce RTX 4090', '12.8'),
  device('2', 'NVIDIA GeForce RTX 4090', '12.8'),
  device('3', 'NVIDIA L40', '12.2', 'US-TX-3'),
];
const spec = (gpu: Partial<NonNullable<EndpointSpec['gpu']>>, extra: Partial<EndpointSpec> = {}) =>
  ({
    gpu: { pools: ['ADA_24'], excludedTypes: [], count: 1, allowedCudaVersions: [], minCudaVersion: null, ...gpu },
    cpu: null,
    dataCenterIds: [],
    ...extra,
  }) as EndpointSpec;

test('GPU workers get their own devices, honouring exclusions, count and CUDA', () => {
  const pool = new CapacityPool(gpus, [], catalog);
  assert.deepEqual(pool.allocate('a', spec({ excludedTypes: ['NVIDIA L4'], count: 2 }))?.deviceIds, ['1', '2']);
  assert.equal(pool.allocate('b', spec({ excludedTypes: ['NVIDIA L4'] })), undefined, 'both 4090s are taken');
  assert.deepEqual(pool.allocate('c', spec({}))?.deviceIds, ['0'], 'the L4 is in the pool too');
  pool.release('a');
  assert.equal(pool.allocate('d', spec({ minCudaVersion: '12.9' })), undefined, '12.8 is below the floor');
  assert.deepEqual(pool.allocate('e', spec({ allowedCudaVersions: ['12.8'] }))?.gpuTypeId, 'NVIDIA GeForce RTX 4090');
});

test('data centers narrow placement; pools are tried in order', () => {
  const pool = new CapacityPool(gpus, [], catalog);
  assert.equal(pool.allocate('a', spec({ pools: ['ADA_48_PRO'] }, { dataCenterIds: ['LOCAL'] } as Partial<EndpointSpec>)), undefined);
  assert.deepEqual(pool.allocate('b', spec({ pools: ['ADA_48_PRO', 'ADA_24'] }))?.dataCenterId, 'US-TX-3');
});

test('CPU workers take vCPUs from a site offering their flavor', () => {
  const pool = new CapacityPool([], [{ vcpus: 8, dataCenterId: 'LOCAL', flavors: ['cpu3c'] }], catalog);
  const cpu = (id: string, vcpuCount: number) =>
    ({ gpu: null, cpu: [{ id, vcpuCount, memory: 1 }], dataCenterIds: [] }) as unknown as EndpointSpec;
  assert.equal(pool.allocate('a', cpu('cpu3c', 4))?.vcpuCount, 4);
  assert.equal(pool.allocate('b', cpu('cpu3c', 4))?.vcpuCount, 4);
  assert.equal(pool.allocate('c', cpu('cpu3c', 2)), undefined, 'eight vCPUs are used');
  assert.equal(pool.allocate('d', cpu('cpu5m', 4)), undefined, 'flavor not offered');
  pool.release('a');
  assert.equal(pool.freeVcpus('LOCAL'), 4);
});
