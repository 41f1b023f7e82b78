// A Gantry killed with SIGKILL cannot stop its containers; started again on the same data
// directory it removes them before anything else, and a clean stop leaves none behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, stop } from './support/processes.js';
import { eventually } from './support/live.js';
import { containersOf, dockerSkipReason, useServeOnDocker, WORKER_IMAGE } from './support/docker.js';

const skip = await dockerSkipReason();
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-orphans-'));
const start = useServeOnDocker(skip, dataDir, ['--scale-interval-ms', '100']);

test('containers left by a Gantry killed with SIGKILL are removed when it starts again', { skip }, async () => {
  const first = await start();
  const key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  const created = await callApi(first.url, key, 'POST', '/v2/serverless', {
    name: 'orphans',
    type: 'QUEUE',
    image: WORKER_IMAGE,
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min: 1, max: 1 },
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
  });
  assert.equal(created.status, 201, created.text);
  const [orphan] = await eventually(
    async () => {
      const list = await containersOf(dataDir);
      return list.length === 1 && list[0]!.State === 'running' && list;
    },
    30_000,
    100,
  );

  await stop(first.child, 'SIGKILL');
  assert.equal((await containersOf(dataDir))[0]?.Id, orphan!.Id, 'nothing stopped the container');

  const second = await start();
  await eventually(async () => !(await containersOf(dataDir)).some((c) => c.Id === orphan!.Id), 30_000, 100);
  // The endpoint still wants one worker: a new container replaces the removed one.
  await eventually(async () => (await containersOf(dataDir)).some((c) => c.State === 'running'), 30_000, 100);

  assert.equal(await stop(second.child), 0);
  assert.deepEqual(await containersOf(dataDir), [], 'a clean stop removes every container');
});
