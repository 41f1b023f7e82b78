// How a pod's create and PATCH bodies become its configuration: fields sent alone are applied,
// and the rules the API document states for pods are enforced with the fields named as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../src/catalog/catalog.js';
import { ApiError } from '../src/domain/errors.js';
import { applyPodPatch, buildPodSpec, type CreatePodInput } from '../src/domain/pod-rules.js';
import { FIXTURE_CATALOG } from './support/harness.js';

const catalog = loadCatalog(FIXTURE_CATALOG);
const gpuPod = buildPodSpec({ name: 'before', image: 'acme/pod:1', args: 'python serve.py', gpu: { id: 'NVIDIA L4' } }, catalog);

function refusal(work: () => unknown): string[] {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 400);
    return error.errors ?? [];
  }
  assert.fail('the body was accepted');
}

test('a PATCH of name or image alone changes them, and keeps the command', () => {
  const renamed = applyPodPatch(gpuPod, { name: 'after' }, true);
  assert.equal(renamed.name, 'after');
  assert.equal(renamed.args, 'python serve.py');
  const moved = applyPodPatch(gpuPod, { image: 'acme/pod:2' }, true);
  assert.equal(moved.image, 'acme/pod:2');
  assert.equal(moved.name, 'before');
  assert.deepEqual(moved.cmd, ['python', 'serve.py']);
  assert.deepEqual(moved.pendingRestart, ['image']);
});

test('a PATCH may not empty the network mounts, even of a pod that has none', () => {
  assert.deepEqual(
    refusal(() => applyPodPatch(gpuPod, { mounts: { network: [] } }, false)),
    ['mounts.network: cannot be emptied: a pod keeps the network volume it was created with'],
  );
  assert.equal(applyPodPatch(gpuPod, { mounts: {} }, false).network, null);
});

test('a list of CUDA versions and a floor exclude each other; an empty list may go with a floor', () => {
  const body = (gpu: CreatePodInput['gpu']): CreatePodInput => ({ name: 'c', image: 'acme/pod:1', gpu });
  assert.deepEqual(
    refusal(() => buildPodSpec(body({ id: 'NVIDIA L4', allowedCudaVersions: ['12.8'], minCudaVersion: '12.1' }), catalog)),
    ['gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions; use one or the other'],
  );
  const floor = buildPodSpec(body({ id: 'NVIDIA L4', allowedCudaVersions: [], minCudaVersion: '12.1' }), catalog);
  assert.equal(floor.gpu?.minCudaVersion, '12.1');
});

test("a CPU pod's failures name its cpu object, and data centers are checked as an endpoint's are", () => {
  assert.deepEqual(
    refusal(() => buildPodSpec({ name: 'c', image: 'acme/pod:1', cpu: { id: 'cpu3c', vcpuCount: 3 } }, catalog)),
    ['cpu.vcpuCount: must be a power of two'],
  );
  const errors = refusal(() =>
    buildPodSpec({ name: 'c', image: 'acme/pod:1', cpu: { id: 'nope', vcpuCount: 2 }, dataCenterIds: ['LOCAL', 'LOCAL', 'MARS'] }, catalog),
  );
  assert.ok(errors[0]!.startsWith("cpu.id: unknown CPU flavor 'nope'"), errors[0]);
  assert.deepEqual(errors.slice(1), [
    'dataCenterIds[1]: duplicates dataCenterIds[0]',
    "dataCenterIds[2]: unknown data center 'MARS'; known: LOCAL, US-TX-3, EU-RO-1",
  ]);
});
