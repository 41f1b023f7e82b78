// Load-balancing endpoints with two replicas on one PostgreSQL: the leader runs the workers, and
// a request arriving at the other replica is relayed to it, key and all; that replica also lists
// the leader's workers and streams their logs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, runCli, serve, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { settles } from './support/live.js';
import { lbFetch } from './support/lb-client.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (load balancing across replicas)`);
const skip = NO_POSTGRES ?? false;

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-replicas-lb-'));
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let adminKey: string;
let leader: ServeProcess;
let follower: ServeProcess;

const replicaArgs = () => [
  '--database',
  schema.url,
  '--data-dir',
  dataDir,
  '--worker-provider',
  'process',
  '--scale-interval-ms',
  '100',
  '--lb-health-interval-ms',
  '100',
  '--leader-lease-ms',
  '1000',
  '--worker-stop-grace-ms',
  '1000',
];

const api = (base: string, method: string, path: string, body?: unknown) => callApi(base, adminKey, method, path, body);

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  adminKey = runCli(['keys', 'create', '--database', schema.url]).trim();
  leader = await serve(replicaArgs());
  // The first replica holds the lease before the second one starts.
  await new Promise((resolve) => setTimeout(resolve, 500));
  follower = await serve(replicaArgs());
});

after(async () => {
  // Gracefully, so the leader stops the worker processes it started.
  await Promise.all([leader, follower].filter(Boolean).map((r) => stop(r.child)));
  await schema?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a request to the replica that does not lead is relayed to the leader's worker, from zero", { skip, timeout: 60_000 }, async () => {
  const created = await api(follower.url, 'POST', '/v2/serverless', {
    name: 'http',
    type: 'LOAD_BALANCER',
    image: 'local/http',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
    workers: { min: 0, max: 1 },
    entrypoint: [process.execPath],
    cmd: ['--import', 'tsx', 'examples/http-worker.ts'],
  });
  assert.equal(created.status, 201, created.text);
  const id = JSON.parse(created.text).id as string;

  const answer = await lbFetch({
    url: follower.url,
    path: `/v2/lb/${id}/whoami`,
    method: 'GET',
    headers: { authorization: `Bearer ${adminKey}` },
  });
  assert.equal(answer.status, 200, answer.text);
  const workerId = answer.json.worker as string;
  assert.match(workerId, new RegExp(`^${id.slice(0, 6)}-`));

  const unauthenticated = await lbFetch({ url: follower.url, path: `/v2/lb/${id}/whoami`, method: 'GET', headers: {} });
  assert.equal(unauthenticated.status, 401, 'the leader still checks the key of a relayed request');

  await settles(async () => {
    const listed = await api(follower.url, 'GET', `/v2/serverless/${id}/workers`);
    assert.ok(listed.text.includes(workerId), listed.text);
  }, 5000);
  const logs = await api(follower.url, 'GET', `/v2/serverless/${id}/workers/${workerId}/logs?follow=false`);
  assert.equal(logs.status, 200, logs.text);
  assert.match(logs.text, /event: log/);
});
