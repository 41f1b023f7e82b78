// Pods with two replicas on one PostgreSQL: the leader runs them (their GPUs held in the pool it
// places workers from); a pod request, an HTTP port or a log stream sent to the other replica is
// relayed to the leader, key and all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, runCli, serve, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { eventually } from './support/live.js';
import { dockerSkipReason, removeContainersOf, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG } from './support/harness.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (pods across replicas)`);
const skip = NO_POSTGRES ?? (await dockerSkipReason()) ?? false;

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-pod-replicas-'));
const capacityFile = join(dataDir, 'capacity.json');
writeFileSync(capacityFile, JSON.stringify({ gpus: [{ type: 'NVIDIA L4', count: 1, cudaVersion: '12.4' }] }));
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let adminKey: string;
let leader: ServeProcess;
let follower: ServeProcess;

const replicaArgs = () => [
  ...['--database', schema.url, '--data-dir', dataDir, '--worker-provider', 'docker', '--leader-lease-ms', '1000'],
  ...['--catalog-file', FIXTURE_CATALOG, '--capacity-file', capacityFile, '--worker-stop-grace-ms', '1000'],
];
const api = (base: string, method: string, path: string, body?: unknown) => callApi(base, adminKey, method, path, body);

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  adminKey = runCli(['keys', 'create', '--database', schema.url]).trim();
  leader = await serve(replicaArgs());
  await new Promise((resolve) => setTimeout(resolve, 500));
  follower = await serve(replicaArgs());
});

after(async () => {
  await Promise.all([leader, follower].filter(Boolean).map((r) => stop(r.child)));
  if (!skip) await removeContainersOf(dataDir);
  await schema?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const SERVER = `require('node:http').createServer((req, res) => res.end('hi from ' + req.url)).listen(8888, () => console.log('listening'));`;

test('pod requests sent to the replica that does not lead are run by the leader', { skip, timeout: 90_000 }, async () => {
  const created = await api(follower.url, 'POST', '/v2/pods', {
    name: 'relayed',
    image: WORKER_IMAGE,
    cmd: ['-e', SERVER],
    gpu: { id: 'NVIDIA L4' },
    ports: ['8888/http'],
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id as string;
  await eventually(async () => (await api(follower.url, 'GET', `/v2/pods/${id}`)).json.status === 'RUNNING', 60_000, 200);
  const availability = await api(
    leader.url,
    'GET',
    `/v2/catalog/gpus/${encodeURIComponent('NVIDIA L4')}?include=AVAILABILITY&product=SERVERLESS`,
  );
  assert.equal(availability.json.availability, 'NONE', "the pod's GPU is held in the leader's pool");
  const second = await api(follower.url, 'POST', '/v2/pods', { name: 'no-room', image: WORKER_IMAGE, gpu: { id: 'NVIDIA L4' } });
  assert.equal(second.status, 400, 'the only L4 is taken, whichever replica is asked');

  await eventually(
    async () => {
      const res = await fetch(`${follower.url}/v2/pods/${id}/ports/8888/x`, { headers: { authorization: `Bearer ${adminKey}` } });
      return res.status === 200 && (await res.text()) === 'hi from /x';
    },
    20_000,
    200,
  );
  const logs = await fetch(`${follower.url}/v2/pods/${id}/logs?follow=false`, { headers: { authorization: `Bearer ${adminKey}` } });
  assert.match(await logs.text(), /listening/);
  assert.equal((await api(follower.url, 'DELETE', `/v2/pods/${id}`)).status, 204);
  assert.equal((await api(leader.url, 'GET', `/v2/pods/${id}`)).status, 404);
});
