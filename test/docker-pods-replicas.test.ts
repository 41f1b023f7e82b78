// Pods with two replicas on one PostgreSQL: the leader runs them (their GPUs held in the pool it
// places workers from); a pod request, an HTTP port, a log stream or a legacy GraphQL pod
// operation sent to the other replica is relayed to the leader, key and all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, runCli, serve, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { eventually, settles } from './support/live.js';
import { dockerSkipReason, removeContainersOf, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG } from './support/harness.js';
import { SDK_GET_POD } from './support/graphql-clients.js';

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
  // The line comes through Docker's log stream, which may trail the port answering.
  await settles(async () => {
    const logs = await fetch(`${follower.url}/v2/pods/${id}/logs?follow=false`, { headers: { authorization: `Bearer ${adminKey}` } });
    assert.match(await logs.text(), /listening/);
  }, 10_000);
  assert.equal((await api(follower.url, 'DELETE', `/v2/pods/${id}`)).status, 204);
  assert.equal((await api(leader.url, 'GET', `/v2/pods/${id}`)).status, 404);
  // The leader recorded the pod's usage up to the terminate; either replica reads it.
  const billed = await api(follower.url, 'GET', `/v2/billing/pods?podId=${id}&lastN=2&bucketSize=hour`);
  assert.equal(billed.status, 200, billed.text);
  const records = billed.json.records as { podId: string }[];
  assert.ok(records.length >= 1, billed.text);
  assert.ok(records.every((r) => r.podId === id));
});

/** A GraphQL request as runpodctl sends it (key in ?api_key=), or as the SDK does (Bearer). */
async function graphqlAnswer(base: string, query: string, client: 'sdk' | 'runpodctl' = 'sdk') {
  const url = client === 'sdk' ? `${base}/graphql` : `${base}/graphql?api_key=${encodeURIComponent(adminKey)}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (client === 'sdk') headers.authorization = `Bearer ${adminKey}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }), signal: AbortSignal.timeout(60_000) });
  assert.equal(res.status, 200);
  return res;
}

async function graphqlAt(base: string, query: string, client: 'sdk' | 'runpodctl' = 'sdk') {
  const res = await graphqlAnswer(base, query, client);
  const body = (await res.json()) as { data: Record<string, unknown> | null; errors?: { message: string }[] };
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data!;
}

test('legacy GraphQL pod operations sent to the replica that does not lead are run by the leader', { skip, timeout: 90_000 }, async () => {
  const created = await graphqlAt(
    follower.url,
    `mutation { podFindAndDeployOnDemand(input: { name: "gql", imageName: "${WORKER_IMAGE}", gpuTypeId: "NVIDIA L4", gpuCount: 1,
      cloudType: SECURE, containerDiskInGb: 5, volumeInGb: 0, dockerArgs: "-e \\"setInterval(() => {}, 1000)\\"" }) { id desiredStatus } }`,
  );
  const { id } = created.podFindAndDeployOnDemand as { id: string };
  assert.equal((await api(leader.url, 'GET', `/v2/pods/${id}`)).status, 200, 'the pod exists, created by the leader');
  await eventually(
    async () => {
      const data = await graphqlAt(follower.url, SDK_GET_POD(id), 'runpodctl');
      return (data.pod as { runtime: unknown } | null)?.runtime !== null;
    },
    60_000,
    200,
  );
  const pods = await graphqlAt(follower.url, 'query { myself { pods { id desiredStatus } } }');
  assert.deepEqual((pods.myself as { pods: unknown[] }).pods, [{ id, desiredStatus: 'RUNNING' }]);
  const stopped = await graphqlAt(follower.url, `mutation { podStop(input: { podId: "${id}" }) { id desiredStatus } }`);
  assert.deepEqual(stopped.podStop, { id, desiredStatus: 'EXITED' });
  assert.equal((await api(leader.url, 'GET', `/v2/pods/${id}`)).json.status, 'EXITED');
  const terminated = await graphqlAt(follower.url, `mutation { podTerminate(input: { podId: "${id}" }) }`);
  assert.equal(terminated.podTerminate, null);
  assert.equal((await api(leader.url, 'GET', `/v2/pods/${id}`)).status, 404);
});

test('a GraphQL pod operation relayed to the leader is counted once, by the leader', { skip, timeout: 30_000 }, async () => {
  // The account's minute window, shared by the replicas: remaining requests and seconds to reset.
  const minuteOf = (res: Response) =>
    /"minute";r=(\d+);t=(\d+)/
      .exec(res.headers.get('ratelimit') ?? '')!
      .slice(1)
      .map(Number);
  let [before, resetIn] = minuteOf(await graphqlAnswer(follower.url, '{ myself { id } }'));
  while (resetIn! < 5) {
    await new Promise((resolve) => setTimeout(resolve, (resetIn! + 1) * 1000));
    [before, resetIn] = minuteOf(await graphqlAnswer(follower.url, '{ myself { id } }'));
  }
  const relayed = await graphqlAnswer(follower.url, 'query { myself { pods { id } } }');
  assert.equal(minuteOf(relayed)[0], before! - 1);
});
