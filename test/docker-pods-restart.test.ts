// Pods outlive Gantry: killed with SIGKILL and started again on the same data directory, Gantry
// adopts the running container of a pod (its GPUs held again, its output followed again) instead
// of removing it as an orphan, and a pod whose container went meanwhile is marked EXITED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, stop } from './support/processes.js';
import { eventually, settles } from './support/live.js';
import { containersOf, docker, dockerSkipReason, useServeOnDocker, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG } from './support/harness.js';

const skip = await dockerSkipReason();
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-pod-restart-'));
const capacityFile = join(dataDir, 'capacity.json');
writeFileSync(capacityFile, JSON.stringify({ gpus: [{ type: 'NVIDIA L4', count: 1, cudaVersion: '12.4' }] }));
const start = useServeOnDocker(skip, dataDir, ['--catalog-file', FIXTURE_CATALOG, '--capacity-file', capacityFile]);

const TICKER = 'let n = 0; setInterval(() => console.log("tick " + n++), 200); process.on("SIGTERM", () => process.exit(0));';

test('a running pod is adopted after Gantry is killed and started again; one whose container went is EXITED', { skip }, async () => {
  const first = await start();
  const key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  const create = (name: string, body: object) =>
    callApi(first.url, key, 'POST', '/v2/pods', { name, image: WORKER_IMAGE, cmd: ['-e', TICKER], ...body });
  const gpuPod = await create('kept', { gpu: { id: 'NVIDIA L4' } });
  assert.equal(gpuPod.status, 201, gpuPod.text);
  const cpuPod = await create('lost', { cpu: { id: 'cpu3c', vcpuCount: 2 } });
  assert.equal(cpuPod.status, 201, cpuPod.text);
  const kept = gpuPod.json.id as string;
  const lost = cpuPod.json.id as string;
  for (const id of [kept, lost])
    await eventually(async () => (await callApi(first.url, key, 'GET', `/v2/pods/${id}`)).json.status === 'RUNNING', 60_000, 200);

  await stop(first.child, 'SIGKILL');
  const ofPod = async (id: string) => (await containersOf(dataDir)).find((c) => c.Labels['gantry.pod'] === id);
  const keptContainer = (await ofPod(kept))!;
  assert.equal(keptContainer.State, 'running', 'nothing stopped the pod');
  await docker.getContainer((await ofPod(lost))!.Id).remove({ force: true });

  const second = await start();
  const again = await callApi(second.url, key, 'GET', `/v2/pods/${kept}`);
  assert.equal(again.json.status, 'RUNNING', again.text);
  assert.equal((await ofPod(kept))?.Id, keptContainer.Id, 'the same container, not removed as an orphan');
  const gpu = await callApi(
    second.url,
    key,
    'GET',
    `/v2/catalog/gpus/${encodeURIComponent('NVIDIA L4')}?include=AVAILABILITY&product=SERVERLESS`,
  );
  assert.equal(gpu.json.availability, 'NONE', 'its GPU is held again');
  const gone = await callApi(second.url, key, 'GET', `/v2/pods/${lost}`);
  assert.equal(gone.json.status, 'EXITED');
  assert.match(gone.json.message, /container was gone/);

  await settles(async () => {
    const logs = await fetch(`${second.url}/v2/pods/${kept}/logs?follow=false&tail=50`, { headers: { authorization: `Bearer ${key}` } });
    assert.match(await logs.text(), /adopted the running container/);
  }, 10_000);
  assert.equal((await callApi(second.url, key, 'DELETE', `/v2/pods/${kept}`)).status, 204);
  assert.equal(await ofPod(kept), undefined);
  assert.equal(await stop(second.child), 0);
});
