// Idempotency keys of submits: stored with their jobs in one transaction, found again by endpoint
// and key, refused when the endpoint already holds the key (nothing of that insert is stored), and
// deleted once expired or with their endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, anAccount, anEndpoint, aQueue, aRelease, NOW } from './records.js';
import { StoreConflictError } from '../../src/store/shared/conflicts.js';
import type { NewJob } from '../../src/store/job-store.js';
import type { SubmitKeyRecord } from '../../src/store/submit-key-store.js';

const suite = useTestStore();

function aKeyFor(jobs: NewJob[], extra: Partial<SubmitKeyRecord> = {}): SubmitKeyRecord {
  return {
    endpointId: jobs[0]!.endpointId,
    key: `key-${Math.random().toString(36).slice(2)}`,
    fingerprint: 'fp-1',
    jobIds: jobs.map((job) => job.id),
    createdAt: NOW,
    expiresAt: NOW + 60_000,
    ...extra,
  };
}

test(`[${TEST_STORE}] a key is stored with its jobs and found again by its endpoint and key`, async () => {
  const queue = aQueue();
  const jobs = [aJob(queue), aJob(queue), aJob(queue)];
  const key = aKeyFor(jobs);
  await suite.store.jobs.insertAll(jobs, key);
  assert.deepEqual(await suite.store.submitKeys.find(queue, key.key), key);
  for (const job of jobs) assert.equal((await suite.store.jobs.get(job.id))?.input, job.input);
  assert.equal(await suite.store.submitKeys.find(aQueue(), key.key), undefined, 'another endpoint does not hold it');
  assert.equal(await suite.store.submitKeys.find(queue, `${key.key}-other`), undefined);
});

test(`[${TEST_STORE}] a key the endpoint already holds refuses the insert whole; the first stays as it was`, async () => {
  const queue = aQueue();
  const first = [aJob(queue)];
  const key = aKeyFor(first);
  await suite.store.jobs.insertAll(first, key);
  const second = [aJob(queue), aJob(queue, { input: JSON.stringify('z'.repeat(300_000)) })];
  const refused = suite.store.jobs.insertAll(second, aKeyFor(second, { key: key.key, fingerprint: 'fp-2' }));
  await assert.rejects(refused, (error: unknown) => {
    assert.ok(error instanceof StoreConflictError);
    assert.match(error.message, new RegExp(`idempotency key '${key.key}'`));
    return true;
  });
  for (const job of second) assert.equal(await suite.store.jobs.get(job.id), undefined, `${job.id} was not stored`);
  assert.deepEqual(await suite.store.submitKeys.find(queue, key.key), key);
  // The same key on another endpoint is another key.
  const elsewhere = [aJob(aQueue())];
  await suite.store.jobs.insertAll(elsewhere, aKeyFor(elsewhere, { key: key.key }));
  assert.ok(await suite.store.jobs.get(elsewhere[0]!.id));
});

test(`[${TEST_STORE}] one key sent on two replicas at once: one insert is stored, the other refused whole`, async () => {
  const queue = aQueue();
  const other = await suite.another();
  const batches = [
    [aJob(queue), aJob(queue)],
    [aJob(queue), aJob(queue)],
  ];
  const key = `key-${Math.random().toString(36).slice(2)}`;
  const outcomes = await Promise.allSettled(
    batches.map((jobs, i) => (i === 0 ? suite.store : other).jobs.insertAll(jobs, aKeyFor(jobs, { key }))),
  );
  const stored = outcomes.map((o) => o.status === 'fulfilled');
  assert.deepEqual(stored.filter(Boolean).length, 1, JSON.stringify(outcomes));
  const winner = stored.indexOf(true);
  const loser = outcomes[1 - winner] as PromiseRejectedResult;
  assert.ok(loser.reason instanceof StoreConflictError, String(loser.reason));
  assert.deepEqual(
    (await suite.store.submitKeys.find(queue, key))?.jobIds,
    batches[winner]!.map((job) => job.id),
  );
  for (const job of batches[1 - winner]!) assert.equal(await suite.store.jobs.get(job.id), undefined);
});

test(`[${TEST_STORE}] expired keys are deleted in batches; the others stay`, async () => {
  const queue = aQueue();
  const keys = [NOW + 10, NOW + 20, NOW + 30, NOW + 500].map((expiresAt) => {
    const jobs = [aJob(queue)];
    return { jobs, key: aKeyFor(jobs, { expiresAt }) };
  });
  for (const { jobs, key } of keys) await suite.store.jobs.insertAll(jobs, key);
  const kept = async () => {
    const found = await Promise.all(keys.map(({ key }) => suite.store.submitKeys.find(queue, key.key)));
    return found.map((record) => record?.expiresAt);
  };
  // No other test here writes a key expiring this early.
  assert.equal(await suite.store.submitKeys.deleteExpired(NOW + 30, 2), 2);
  assert.deepEqual(await kept(), [undefined, undefined, NOW + 30, NOW + 500], 'the oldest two went first');
  assert.equal(await suite.store.submitKeys.deleteExpired(NOW + 30, 2), 1);
  assert.equal(await suite.store.submitKeys.deleteExpired(NOW + 30, 2), 0);
  assert.deepEqual(await kept(), [undefined, undefined, undefined, NOW + 500], 'the key not yet expired stays');
  for (const { jobs } of keys) assert.ok(await suite.store.jobs.get(jobs[0]!.id), 'its jobs are not the key’s to delete');
});

test(`[${TEST_STORE}] deleting an endpoint deletes its keys, and only its keys`, async () => {
  const owner = anAccount();
  await suite.store.ensureAccount(owner);
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  const keys = [];
  for (let i = 0; i < 3; i++) {
    const jobs = [aJob(endpoint.id)];
    keys.push(aKeyFor(jobs));
    await suite.store.jobs.insertAll(jobs, keys[i]);
  }
  const elsewhere = [aJob(aQueue())];
  const kept = aKeyFor(elsewhere, { key: keys[0]!.key });
  await suite.store.jobs.insertAll(elsewhere, kept);
  assert.equal(await suite.store.deleteEndpoint(owner.id, endpoint.id), true);
  for (const key of keys) assert.equal(await suite.store.submitKeys.find(endpoint.id, key.key), undefined);
  assert.deepEqual(await suite.store.submitKeys.find(kept.endpointId, kept.key), kept, 'the same key on another endpoint stays');
});
