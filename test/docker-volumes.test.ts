// A network volume on a real Docker engine: every worker container of the endpoint mounts the
// volume's directory at /runpod-volume, so what one worker's job writes there the next one reads.
// Needs an engine and the test image (scripts/test-images.sh); skipped, visibly, without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runsync } from './support/live.js';
import { containersOf, docker, dockerSkipReason, useLiveOnDocker, WORKER_IMAGE } from './support/docker.js';

const skip = await dockerSkipReason();
const g = useLiveOnDocker(skip, { scaleIntervalMs: '100', workerPingIntervalMs: '200', workerStopGraceMs: '2000' });

// A handler of its own on the test image's worker SDK, so the test does not depend on which build
// of the example worker the shared gantry-test/worker:current tag names right now.
const VOLUME_HANDLER = `
import { readFile, writeFile } from 'node:fs/promises';
import { serve } from '/app/src/worker/index.js';
await serve(async ({ input }) => {
  const file = '/runpod-volume/' + input.name;
  if (input.text !== undefined) { await writeFile(file, input.text); return { wrote: input.name }; }
  return readFile(file, 'utf8');
});`;

test('a file one worker writes to /runpod-volume is read by the next worker of the endpoint', { skip }, async () => {
  const volume = await g.call('POST', '/v2/network-volumes', { name: 'shared', size: 10, dataCenter: 'LOCAL' });
  assert.equal(volume.statusCode, 201, volume.body);
  const volumeId = volume.json().id as string;
  const created = await g.call('POST', '/v2/serverless', {
    name: 'volume',
    type: 'QUEUE',
    image: WORKER_IMAGE,
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min: 0, max: 1, idleTimeout: 1 },
    networkVolumes: [volumeId],
    cmd: ['--input-type=module', '-e', VOLUME_HANDLER],
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  const ofEndpoint = async () => (await containersOf(g.dataDir)).filter((c) => c.Labels['gantry.endpoint'] === id);

  const wrote = await runsync(g, id, { name: 'note.txt', text: 'written by the first worker' });
  assert.deepEqual([wrote.status, wrote.output], ['COMPLETED', { wrote: 'note.txt' }], JSON.stringify(wrote));
  const [first] = await ofEndpoint();
  assert.ok(first, 'the first worker is a container');
  const mounts = (await docker.getContainer(first.Id).inspect()).Mounts.map((m) => [m.Source, m.Destination]);
  assert.deepEqual(mounts, [[join(g.services.config.volumeRoot, volumeId), '/runpod-volume']]);
  assert.equal(
    readFileSync(join(g.services.config.volumeRoot, volumeId, 'note.txt'), 'utf8'),
    'written by the first worker',
    'on the volume directory of the host',
  );

  // Idle for idleTimeout, the first worker goes; the next job starts another container.
  await eventually(async () => (await ofEndpoint()).length === 0, 20_000, 100);
  const read = await runsync(g, id, { name: 'note.txt' });
  assert.deepEqual([read.status, read.output], ['COMPLETED', 'written by the first worker']);
  const [second] = await ofEndpoint();
  assert.ok(second && second.Id !== first.Id, 'read by another container');

  const inUse = await g.call('DELETE', `/v2/network-volumes/${volumeId}`);
  assert.equal(inUse.statusCode, 409, 'the endpoint still uses it');
  await g.call('DELETE', `/v2/serverless/${id}`);
  await eventually(async () => (await ofEndpoint()).length === 0, 20_000, 100);
  assert.equal((await g.call('DELETE', `/v2/network-volumes/${volumeId}`)).statusCode, 204);
});
