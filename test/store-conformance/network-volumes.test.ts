// Network volumes: account-scoped records whose name and size change and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aNetworkVolume, anAccount } from './records.js';
import { StoreConflictError } from '../../src/store/shared/conflicts.js';

const owner = anAccount();
const stranger = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
  await store.ensureAccount(stranger);
});

test(`[${TEST_STORE}] a network volume reads back exactly as written, to its own account only`, async () => {
  const volume = aNetworkVolume(owner.id, { type: 'HIGH_PERFORMANCE', size: 4096 });
  await suite.store.insertNetworkVolume(volume);
  assert.deepEqual(await suite.store.getNetworkVolume(owner.id, volume.id), volume);
  assert.equal(await suite.store.getNetworkVolume(stranger.id, volume.id), undefined, "another account's id is unknown");
  assert.equal(await suite.store.getNetworkVolume(owner.id, 'vol-missing'), undefined);
});

test(`[${TEST_STORE}] a second volume with the same id is a conflict`, async () => {
  const volume = aNetworkVolume(owner.id);
  await suite.store.insertNetworkVolume(volume);
  await assert.rejects(suite.store.insertNetworkVolume({ ...volume, accountId: stranger.id }), StoreConflictError);
});

test(`[${TEST_STORE}] an account lists its own volumes, oldest first`, async () => {
  const account = anAccount();
  await suite.store.ensureAccount(account);
  const first = aNetworkVolume(account.id);
  const second = aNetworkVolume(account.id);
  for (const volume of [second, aNetworkVolume(stranger.id), first]) await suite.store.insertNetworkVolume(volume);
  assert.deepEqual(
    (await suite.store.listNetworkVolumes(account.id)).map((v) => v.id),
    [first.id, second.id],
  );
});

test(`[${TEST_STORE}] an update writes name, size and time, never the data center or type`, async () => {
  const volume = aNetworkVolume(owner.id);
  await suite.store.insertNetworkVolume(volume);
  const changed = {
    ...volume,
    spec: { name: 'renamed', size: 200, dataCenterId: 'EU-RO-1', type: 'HIGH_PERFORMANCE' as const },
    updatedAt: '2031-01-01T00:00:00.000Z',
  };
  assert.equal(await suite.store.updateNetworkVolume(changed), true);
  assert.deepEqual(await suite.store.getNetworkVolume(owner.id, volume.id), {
    ...volume,
    spec: { ...volume.spec, name: 'renamed', size: 200 },
    updatedAt: '2031-01-01T00:00:00.000Z',
  });
  assert.equal(
    await suite.store.updateNetworkVolume({ ...changed, accountId: stranger.id }),
    false,
    "another account's volume is not written",
  );
  assert.equal(await suite.store.updateNetworkVolume({ ...changed, id: 'vol-missing' }), false);
});

test(`[${TEST_STORE}] an update written from an older read never shrinks a volume that grew meanwhile`, async () => {
  const volume = aNetworkVolume(owner.id);
  await suite.store.insertNetworkVolume(volume);
  const grown = { ...volume, spec: { ...volume.spec, size: volume.spec.size + 30 } };
  const lesser = { ...volume, spec: { ...volume.spec, size: volume.spec.size + 10 } };
  assert.equal(await suite.store.updateNetworkVolume(grown), true);
  assert.equal(await suite.store.updateNetworkVolume(lesser), false, 'the smaller size, read before the grow, is not written');
  assert.equal((await suite.store.getNetworkVolume(owner.id, volume.id))?.spec.size, volume.spec.size + 30);
  assert.equal(await suite.store.updateNetworkVolume({ ...grown, spec: { ...grown.spec, name: 'same size' } }), true);
});

test(`[${TEST_STORE}] a volume is deleted by its own account only, once`, async () => {
  const volume = aNetworkVolume(owner.id);
  await suite.store.insertNetworkVolume(volume);
  assert.equal(await suite.store.deleteNetworkVolume(stranger.id, volume.id), false);
  assert.equal(await suite.store.deleteNetworkVolume(owner.id, volume.id), true);
  assert.equal(await suite.store.deleteNetworkVolume(owner.id, volume.id), false);
  assert.equal(await suite.store.getNetworkVolume(owner.id, volume.id), undefined);
});
