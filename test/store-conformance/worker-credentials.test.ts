// Worker credentials: stored as given and found by id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import type { WorkerCredentialRecord } from '../../src/store/job-store.js';

const suite = useTestStore();

test(`[${TEST_STORE}] a worker credential reads back exactly as written`, async () => {
  const active: WorkerCredentialRecord = {
    id: 'wk-1',
    endpointId: 'ep-1',
    secretHash: 'cd'.repeat(32),
    createdAt: '2030-01-01T00:00:00.000Z',
    revokedAt: null,
  };
  const revoked: WorkerCredentialRecord = { ...active, id: 'wk-2', revokedAt: '2030-02-01T00:00:00.000Z' };
  await suite.store.jobs.insertWorkerCredential(active);
  await suite.store.jobs.insertWorkerCredential(revoked);
  assert.deepEqual(await suite.store.jobs.getWorkerCredential('wk-1'), active);
  assert.deepEqual(await suite.store.jobs.getWorkerCredential('wk-2'), revoked);
  assert.equal(await suite.store.jobs.getWorkerCredential('wk-missing'), undefined);
});

test(`[${TEST_STORE}] a worker credential id is unique`, async () => {
  const credential: WorkerCredentialRecord = {
    id: 'wk-dup',
    endpointId: 'ep-1',
    secretHash: 'ef'.repeat(32),
    createdAt: '2030-01-01T00:00:00.000Z',
    revokedAt: null,
  };
  await suite.store.jobs.insertWorkerCredential(credential);
  await assert.rejects(suite.store.jobs.insertWorkerCredential({ ...credential, secretHash: '00'.repeat(32) }), {
    name: 'StoreConflictError',
    message: 'worker credential wk-dup already exists',
  });
  assert.equal((await suite.store.jobs.getWorkerCredential('wk-dup'))?.secretHash, credential.secretHash);
});
