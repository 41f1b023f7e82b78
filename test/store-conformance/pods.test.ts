// Pods: kept whole, scoped to their account, written only on the revision they were read at,
// and listed by whether they hold resources, for a meter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { anAccount } from './records.js';
import type { PodRecord } from '../../src/store/pod-store.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

let serial = 0;
function aPod(accountId: string, overrides: Partial<PodRecord> = {}): PodRecord {
  serial++;
  const at = `2031-04-04T00:00:${String(serial).padStart(2, '0')}.000Z`;
  return {
    id: `pod${serial}x${Math.random().toString(36).slice(2, 8)}`,
    accountId,
    spec: {
      name: `pod-${serial}`,
      image: 'img:1',
      args: '',
      entrypoint: [],
      cmd: [],
      disk: 20,
      ports: ['8888/http', '22/tcp'],
      env: { A: '1' },
      registry: null,
      cloud: 'SECURE',
      gpu: { typeId: 'NVIDIA A40', count: 2, allowedCudaVersions: [], minCudaVersion: null },
      cpu: null,
      dataCenterIds: [],
      persistent: { size: 20, path: '/workspace' },
      network: null,
      locked: false,
      startSsh: true,
      startJupyter: false,
      pendingRestart: [],
    },
    status: 'PROVISIONING',
    placement: { dataCenterId: 'LOCAL', gpuTypeId: 'NVIDIA A40', deviceIds: ['0', '1'], cudaVersion: '12.4', vcpuCount: null },
    message: null,
    revision: 1,
    createdAt: at,
    updatedAt: at,
    lastStartedAt: null,
    lastStatusChange: at,
    ...overrides,
  };
}

test(`[${TEST_STORE}] a pod reads back whole, to its own account only`, async () => {
  const pod = aPod(owner.id);
  await suite.store.pods.insert(pod);
  assert.deepEqual(await suite.store.pods.get(owner.id, pod.id), pod);
  assert.equal(await suite.store.pods.get(stranger.id, pod.id), undefined);
  assert.ok((await suite.store.pods.list(owner.id)).some((p) => p.id === pod.id));
  assert.ok(!(await suite.store.pods.list(stranger.id)).some((p) => p.id === pod.id));
  assert.ok((await suite.store.pods.listAll()).some((p) => p.id === pod.id));
});

test(`[${TEST_STORE}] an update applies only on the revision it read; a second writer is told it lost`, async () => {
  const pod = aPod(owner.id);
  await suite.store.pods.insert(pod);
  const other = await suite.another();
  const running: PodRecord = { ...pod, status: 'RUNNING', revision: 2, lastStartedAt: '2031-04-04T01:00:00.000Z' };
  const exited: PodRecord = { ...pod, status: 'EXITED', placement: null, revision: 2 };
  assert.equal(await suite.store.pods.update(running, 1), true);
  assert.equal(await other.pods.update(exited, 1), false, 'written on a revision that is gone');
  assert.deepEqual(await other.pods.get(owner.id, pod.id), running);
  assert.equal(await suite.store.pods.update({ ...running, accountId: stranger.id, revision: 3 }, 2), false, 'not across accounts');
});

test(`[${TEST_STORE}] pods holding resources are those provisioning, starting or running, with their placement`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const running = aPod(account.id, { status: 'RUNNING', lastStartedAt: '2031-04-04T02:00:00.000Z' });
  const exited = aPod(account.id, { status: 'EXITED', placement: null });
  const failed = aPod(account.id, { status: 'ERROR', placement: null, message: 'image not found' });
  for (const pod of [running, exited, failed]) await suite.store.pods.insert(pod);
  const holding = (await suite.store.pods.holdingResources()).filter((h) => h.accountId === account.id);
  assert.deepEqual(holding, [
    {
      id: running.id,
      accountId: account.id,
      status: 'RUNNING',
      placement: running.placement,
      lastStartedAt: '2031-04-04T02:00:00.000Z',
      lastStatusChange: running.lastStatusChange,
    },
  ]);
});

test(`[${TEST_STORE}] a deleted pod is gone; deleting it again or another account's answers false`, async () => {
  const pod = aPod(owner.id);
  await suite.store.pods.insert(pod);
  assert.equal(await suite.store.pods.delete(stranger.id, pod.id), false);
  assert.equal(await suite.store.pods.delete(owner.id, pod.id), true);
  assert.equal(await suite.store.pods.get(owner.id, pod.id), undefined);
  assert.equal(await suite.store.pods.delete(owner.id, pod.id), false);
});
