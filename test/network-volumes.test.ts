// /v2/network-volumes: account-scoped volumes backed by a directory each, offered in the data
// centers where this deployment runs workers, used by endpoints of the same account.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, linkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { problem, startHarness, type Harness } from './support/harness.js';

let h: Harness;
let otherKey: string;
let volumeRoot: string;

before(async () => {
  h = await startHarness();
  volumeRoot = h.services.config.volumeRoot;
  otherKey = await h.newKey({ accountName: 'other' });
});
after(() => h.close());

async function createVolume(body: Record<string, unknown> = {}, key?: string) {
  const res = await h.call('POST', '/v2/network-volumes', { name: 'weights', size: 10, dataCenter: 'LOCAL', ...body }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; name: string; size: number; dataCenter: string; type: string };
}

const endpointBody = (extra: Record<string, unknown>) => ({
  name: 'uses-volume',
  type: 'QUEUE',
  image: 'acme/worker:1',
  cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
  ...extra,
});

test('a volume is created with its directory (0700) under the volume root, and listed, read and deleted with it', async () => {
  const volume = await createVolume({ name: 'datasets', size: 50 });
  assert.deepEqual({ ...volume, id: undefined }, { id: undefined, name: 'datasets', size: 50, dataCenter: 'LOCAL', type: 'STANDARD' });
  const dir = join(volumeRoot, volume.id);
  assert.equal(statSync(dir).isDirectory(), true);
  assert.equal(statSync(dir).mode & 0o777, 0o700);

  const listed = (await h.call('GET', '/v2/network-volumes')).json().networkVolumes as { id: string }[];
  assert.ok(listed.some((v) => v.id === volume.id));

  writeFileSync(join(dir, 'model.bin'), Buffer.alloc(4096));
  const read = (await h.call('GET', `/v2/network-volumes/${volume.id}`)).json();
  assert.deepEqual(read.usage, { usedBytes: 4096, sizeBytes: 50 * 1024 ** 3, complete: true }, 'use reported against the size');
  linkSync(join(dir, 'model.bin'), join(dir, 'same-model.bin'));
  assert.equal((await h.call('GET', `/v2/network-volumes/${volume.id}`)).json().usage.usedBytes, 4096, 'a hard link takes no more room');

  const deleted = await h.call('DELETE', `/v2/network-volumes/${volume.id}`);
  assert.equal(deleted.statusCode, 204);
  assert.equal(existsSync(dir), false, 'its files go with it');
  assert.equal((await h.call('GET', `/v2/network-volumes/${volume.id}`)).statusCode, 404);
});

test('another account cannot see, change or delete a volume', async () => {
  const volume = await createVolume();
  for (const [method, body] of [
    ['GET', undefined],
    ['PATCH', { size: 20 }],
    ['DELETE', undefined],
  ] as const) {
    const res = await h.call(method, `/v2/network-volumes/${volume.id}`, body, otherKey);
    assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
  }
  const theirs = (await h.call('GET', '/v2/network-volumes', undefined, otherKey)).json().networkVolumes as { id: string }[];
  assert.equal(
    theirs.some((v) => v.id === volume.id),
    false,
  );
});

test('a name is up to 191 characters and not blank', async () => {
  for (const [name, line] of [
    ['   ', 'name: must not be blank'],
    ['v'.repeat(192), 'name: must NOT have more than 191 characters'],
  ] as const) {
    const res = await h.call('POST', '/v2/network-volumes', { name, size: 10, dataCenter: 'LOCAL' });
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(problem(res).errors, [line]);
  }
});

test('size is 10 to 4096 GB and only grows; the data center cannot change', async () => {
  for (const size of [9, 4097]) {
    const res = await h.call('POST', '/v2/network-volumes', { name: 'x', size, dataCenter: 'LOCAL' });
    assert.equal(res.statusCode, 422, res.body);
  }
  const volume = await createVolume({ size: 20 });
  const grown = await h.call('PATCH', `/v2/network-volumes/${volume.id}`, { size: 30, name: 'bigger' });
  assert.equal(grown.statusCode, 200, grown.body);
  assert.deepEqual([grown.json().size, grown.json().name], [30, 'bigger']);

  const shrunk = await h.call('PATCH', `/v2/network-volumes/${volume.id}`, { size: 20 });
  assert.equal(shrunk.statusCode, 400);
  assert.equal(shrunk.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.deepEqual(shrunk.json().errors, ['size: must be at least the current size (30 GB): a network volume cannot shrink']);

  const moved = await h.call('PATCH', `/v2/network-volumes/${volume.id}`, { dataCenter: 'EU-RO-1' });
  assert.equal(moved.statusCode, 422, 'dataCenter is not a field of an update');
  assert.equal((await h.call('PATCH', `/v2/network-volumes/${volume.id}`, {})).statusCode, 422, 'an empty update is refused');
});

test('volumes are offered where this deployment runs workers, and the catalog says so', async () => {
  const centers = (await h.call('GET', '/v2/catalog/datacenters')).json().dataCenters as { id: string; networkVolumeTypes: string[] }[];
  assert.deepEqual(centers.find((dc) => dc.id === 'LOCAL')?.networkVolumeTypes, ['STANDARD']);
  assert.deepEqual(centers.find((dc) => dc.id === 'EU-RO-1')?.networkVolumeTypes, [], 'no workers run there');

  const elsewhere = await h.call('POST', '/v2/network-volumes', { name: 'x', size: 10, dataCenter: 'EU-RO-1' });
  assert.equal(elsewhere.statusCode, 400);
  assert.deepEqual(elsewhere.json().errors, ["dataCenter: 'EU-RO-1' offers no network volumes here; data centers that do: LOCAL"]);
  const fast = await h.call('POST', '/v2/network-volumes', { name: 'x', size: 10, dataCenter: 'LOCAL', type: 'HIGH_PERFORMANCE' });
  assert.equal(fast.statusCode, 400);
  assert.deepEqual(fast.json().errors, ["type: 'LOCAL' offers STANDARD"]);
});

test("an endpoint takes its own account's volumes only, where it may run, and a volume in use cannot be deleted", async () => {
  const volume = await createVolume();
  const theirs = await createVolume({}, otherKey);

  const unknown = await h.call('POST', '/v2/serverless', endpointBody({ networkVolumes: [theirs.id, volume.id, volume.id] }));
  assert.equal(unknown.statusCode, 400);
  assert.deepEqual(unknown.json().errors, [
    `networkVolumes[0]: unknown network volume '${theirs.id}'`,
    'networkVolumes[2]: duplicates networkVolumes[1]',
  ]);

  const outside = await h.call('POST', '/v2/serverless', endpointBody({ networkVolumes: [volume.id], dataCenterIds: ['EU-RO-1'] }));
  assert.equal(outside.statusCode, 400);
  assert.deepEqual(outside.json().errors, ['networkVolumes[0]: is in data center LOCAL, which dataCenterIds leaves out']);

  const created = await h.call('POST', '/v2/serverless', endpointBody({ networkVolumes: [volume.id] }));
  assert.equal(created.statusCode, 201, created.body);
  const endpointId = created.json().id as string;
  assert.deepEqual(created.json().networkVolumes, [volume.id]);

  const inUse = await h.call('DELETE', `/v2/network-volumes/${volume.id}`);
  assert.equal(inUse.statusCode, 409);
  assert.match(inUse.json().detail, new RegExp(`used by endpoint ${endpointId}`));

  const patched = await h.call('PATCH', `/v2/serverless/${endpointId}`, { networkVolumes: [] });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal((await h.call('DELETE', `/v2/network-volumes/${volume.id}`)).statusCode, 204);
  const stale = await h.call('PATCH', `/v2/serverless/${endpointId}`, { networkVolumes: [volume.id] });
  assert.deepEqual(stale.json().errors, [`networkVolumes[0]: unknown network volume '${volume.id}'`], 'a deleted volume is unknown');
});
