// Endpoints: owned by one account, written with optimistic concurrency, with their release history;
// deleting one drops its queue, its stream chunks and its releases, and nothing of other endpoints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, anAccount, anEndpoint, aRelease, aStreamWriter, NOW } from './records.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

test(`[${TEST_STORE}] an endpoint reads back exactly as written, for its owner only`, async () => {
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint);
  assert.deepEqual(await suite.store.getEndpoint(owner.id, endpoint.id), endpoint);
  assert.equal(await suite.store.getEndpoint(stranger.id, endpoint.id), undefined, 'another account does not see it');
  assert.deepEqual(await suite.store.findEndpoint(endpoint.id), endpoint, 'found by id alone, whoever owns it');
  assert.equal(await suite.store.findEndpoint('ep-missing'), undefined);
});

test(`[${TEST_STORE}] endpoints are listed per account, and all together, by creation time then id`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const later = anEndpoint(account.id, { createdAt: '2039-01-01T00:00:00.000Z' });
  const tieB = anEndpoint(account.id, { id: 'ep-tie-b', createdAt: '2038-01-01T00:00:00.000Z' });
  const tieA = anEndpoint(account.id, { id: 'ep-tie-a', createdAt: '2038-01-01T00:00:00.000Z' });
  const elsewhere = anEndpoint(stranger.id, { createdAt: '2038-06-01T00:00:00.000Z' });
  for (const endpoint of [later, tieB, elsewhere, tieA]) await suite.store.insertEndpoint(endpoint);
  assert.deepEqual(
    (await suite.store.listEndpoints(account.id)).map((e) => e.id),
    ['ep-tie-a', 'ep-tie-b', later.id],
  );
  const all = (await suite.store.listAllEndpoints()).map((e) => e.id);
  assert.deepEqual(all.slice(-4), ['ep-tie-a', 'ep-tie-b', elsewhere.id, later.id]);
  assert.deepEqual(await suite.store.listEndpoints('acct-without-endpoints'), []);
});

test(`[${TEST_STORE}] an update lands only on the revision it was based on, and records its release`, async () => {
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  const changed = {
    ...endpoint,
    spec: { ...endpoint.spec, image: 'example/worker:2' },
    version: 2,
    revision: 2,
    updatedAt: '2031-01-01T00:00:00.000Z',
  };
  assert.equal(await suite.store.updateEndpoint(changed, 1, aRelease(endpoint.id, 2)), true);
  assert.deepEqual(await suite.store.getEndpoint(owner.id, endpoint.id), changed);

  const stale = { ...changed, spec: { ...changed.spec, image: 'example/worker:stale' }, version: 3, revision: 3 };
  assert.equal(await suite.store.updateEndpoint(stale, 1, aRelease(endpoint.id, 3)), false, 'a write based on revision 1 lost');
  assert.equal(await suite.store.updateEndpoint({ ...stale, accountId: stranger.id }, 2), false, 'another account cannot write it');
  assert.deepEqual(await suite.store.getEndpoint(owner.id, endpoint.id), changed);
  assert.deepEqual(
    (await suite.store.listReleases(endpoint.id)).map((r) => r.version),
    [2, 1],
    'newest first, no release for lost writes',
  );
});

test(`[${TEST_STORE}] a release reads back as written`, async () => {
  const endpoint = anEndpoint(owner.id);
  const release = aRelease(endpoint.id, 1, { createdBy: owner.id, diff: [{ field: 'workers.max', old: 1, new: { nested: [2] } }] });
  await suite.store.insertEndpoint(endpoint, release);
  assert.deepEqual(await suite.store.listReleases(endpoint.id), [release]);
  assert.deepEqual(await suite.store.listReleases('ep-missing'), []);
});

test(`[${TEST_STORE}] an endpoint and its release are written together or not at all`, async () => {
  const first = anEndpoint(owner.id);
  const taken = aRelease(first.id, 1);
  await suite.store.insertEndpoint(first, taken);
  const second = anEndpoint(owner.id);
  await assert.rejects(suite.store.insertEndpoint(second, { ...taken, endpointId: second.id }), { name: 'StoreConflictError' });
  assert.equal(await suite.store.findEndpoint(second.id), undefined, 'the endpoint was not kept without its release');

  const changed = { ...first, revision: 2, version: 2 };
  await assert.rejects(suite.store.updateEndpoint(changed, 1, { ...taken, version: 2 }), { name: 'StoreConflictError' });
  assert.equal((await suite.store.findEndpoint(first.id))?.revision, 1, 'the update was rolled back with its release');
});

test(`[${TEST_STORE}] an endpoint id is unique, and an endpoint needs an existing account`, async () => {
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint);
  await assert.rejects(suite.store.insertEndpoint({ ...endpoint, accountId: stranger.id }), {
    name: 'StoreConflictError',
    message: `endpoint ${endpoint.id} already exists`,
  });
  await assert.rejects(suite.store.insertEndpoint(anEndpoint('acct-missing')));
});

test(`[${TEST_STORE}] deleting an endpoint removes it with its jobs, streams and releases, and only its own`, async () => {
  const doomed = anEndpoint(owner.id);
  const kept = anEndpoint(owner.id);
  await suite.store.insertEndpoint(doomed, aRelease(doomed.id, 1));
  await suite.store.insertEndpoint(kept, aRelease(kept.id, 1));
  const jobs = suite.store.jobs;
  const queued = aJob(doomed.id);
  const running = aJob(doomed.id);
  const neighbour = aJob(kept.id);
  for (const job of [running, queued, neighbour]) await jobs.insert(job);
  await jobs.take(doomed.id, 'w1', 1, NOW, NOW + 1000);
  await jobs.appendStream(running.id, ['chunk'], aStreamWriter(running.endpointId));
  await jobs.appendStream(neighbour.id, ['kept chunk'], aStreamWriter(neighbour.endpointId));

  assert.equal(await suite.store.deleteEndpoint(stranger.id, doomed.id), false, 'another account cannot delete it');
  assert.ok(await suite.store.findEndpoint(doomed.id));
  assert.equal(await suite.store.deleteEndpoint(owner.id, doomed.id), true);
  assert.equal(await suite.store.deleteEndpoint(owner.id, doomed.id), false, 'already gone');

  assert.equal(await suite.store.findEndpoint(doomed.id), undefined);
  assert.equal(await jobs.get(queued.id), undefined);
  assert.equal(await jobs.get(running.id), undefined);
  assert.deepEqual((await jobs.readStream(running.id)).chunks, []);
  assert.deepEqual(await suite.store.listReleases(doomed.id), []);

  assert.ok(await suite.store.findEndpoint(kept.id));
  assert.equal((await jobs.get(neighbour.id))?.status, 'IN_QUEUE');
  assert.deepEqual((await jobs.readStream(neighbour.id)).chunks, ['kept chunk']);
  assert.equal((await suite.store.listReleases(kept.id)).length, 1);
});

test(`[${TEST_STORE}] an endpoint re-created with a deleted one's id starts with no history`, async () => {
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  await suite.store.jobs.insert(aJob(endpoint.id));
  await suite.store.deleteEndpoint(owner.id, endpoint.id);
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  assert.equal((await suite.store.listReleases(endpoint.id)).length, 1);
  assert.equal((await suite.store.jobs.counts(endpoint.id)).inQueue, 0);
});
