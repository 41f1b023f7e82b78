// A pod on a real Docker engine: a GPU from a capacity file, an HTTP port and SSH, a persistent
// volume and the account's SSH keys. It runs the test image, keeps its volume across a stop and a
// start, shows its logs, holds its GPU in the catalog's availability meanwhile, and on terminate
// leaves neither container nor volume directory. Needs an engine and the test image
// (scripts/test-images.sh); skipped, visibly, without them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, settles } from './support/live.js';
import { containersOf, dockerSkipReason, useLiveOnDocker, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG, problem } from './support/harness.js';
import { assertReferenceShape } from './support/reference-schemas.js';
import { graphql, sdkRead, SDK_GET_POD, SDK_GET_PODS } from './support/graphql-clients.js';

const skip = await dockerSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'gantry-pod-capacity-'));
const capacityFile = join(dir, 'capacity.json');
writeFileSync(capacityFile, JSON.stringify({ gpus: [{ type: 'NVIDIA L4', count: 2, cudaVersion: '12.4' }] }));
const GPU = 'NVIDIA L4';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB7tLHCLBZkPq0S2mF3hD5Zz0mZpWxj6Vb7yQm2u6e9R me@laptop';

// Serves 8888, and reports (on its log) PUBLIC_KEY, JUPYTER_PASSWORD and what the volume held when it started.
const POD_SCRIPT = `
const fs = require('node:fs');
const note = '/workspace/note.txt';
console.log('public key: ' + (process.env.PUBLIC_KEY ?? 'none'));
console.log('jupyter password: ' + (process.env.JUPYTER_PASSWORD ?? 'none'));
console.log('note at start: ' + (fs.existsSync(note) ? fs.readFileSync(note, 'utf8') : 'none'));
if (!fs.existsSync(note)) fs.writeFileSync(note, 'written at the first start');
require('node:http').createServer((req, res) => res.end('pod says hi at ' + req.url)).listen(8888, () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));`;

const g = useLiveOnDocker(skip, { catalogFile: FIXTURE_CATALOG, capacityFile, workerStopGraceMs: '2000' });
after(() => rmSync(dir, { recursive: true, force: true }));

const podOf = async (id: string) => {
  const res = await g.call('GET', `/v2/pods/${id}`);
  assert.equal(res.statusCode, 200, res.body);
  assertReferenceShape('Pod', res.json());
  return res.json();
};
const freeL4 = async () => {
  const res = await g.call('GET', `/v2/catalog/gpus/${encodeURIComponent(GPU)}?include=AVAILABILITY&product=SERVERLESS`);
  return res.json().availability as string;
};
const logText = async (id: string) => {
  const res = await fetch(`${g.url}/v2/pods/${id}/logs?tail=5000&follow=false`, { headers: { authorization: `Bearer ${g.adminKey}` } });
  assert.equal(res.status, 200);
  return res.text();
};

test('a GPU pod runs, keeps its volume across stop and start, shows its logs and terminates cleanly', { skip }, async () => {
  assert.equal((await g.call('PUT', '/v2/account/ssh-keys', { keys: [KEY] })).statusCode, 200);
  assert.equal(await freeL4(), 'MEDIUM', 'two free L4s before the pod');
  const created = await g.call('POST', '/v2/pods', {
    name: 'notebook',
    image: WORKER_IMAGE,
    cmd: ['-e', POD_SCRIPT],
    gpu: { id: GPU, count: 2 },
    ports: ['8888/http', '22/tcp'],
    mounts: { persistent: { size: 10, path: '/workspace' } },
    startSsh: true,
    startJupyter: true,
  });
  assert.equal(created.statusCode, 201, created.body);
  const password = created.json().env.JUPYTER_PASSWORD as string;
  assert.match(password, /^[\w-]{16}$/, 'startJupyter makes a password, kept in the env its owner reads');
  assertReferenceShape('Pod', created.json());
  assert.deepEqual(created.json().actions, ['stop', 'terminate'], 'a pod being started may be stopped or terminated');
  const id = created.json().id as string;
  assert.equal(await freeL4(), 'NONE', 'the pod holds both GPUs');

  const running = await eventually(
    async () => {
      const pod = await podOf(id);
      return pod.status === 'RUNNING' && (await logText(id)).includes('listening') && pod;
    },
    60_000,
    200,
  );
  assert.deepEqual(running.actions, ['stop', 'restart', 'terminate']);
  assert.deepEqual(running.gpu, { id: GPU, count: 2 });
  const http = running.runtime.ports.find((p: { private: number }) => p.private === 8888);
  assert.equal(http.ip, '127.0.0.1', 'HTTP ports are published on loopback');
  assert.equal(await (await fetch(`http://127.0.0.1:${http.public}/`)).text(), 'pod says hi at /');
  assert.deepEqual(running.http, [{ port: 8888, url: `${g.url}/v2/pods/${id}/ports/8888/` }]);
  const auth = { authorization: `Bearer ${g.adminKey}` };
  const proxied = await fetch(`${g.url}/v2/pods/${id}/ports/8888/lab/tree?x=1`, { headers: auth });
  assert.equal(await proxied.text(), 'pod says hi at /lab/tree?x=1', 'through Gantry, the path after the port is what the pod sees');
  assert.equal((await fetch(`${g.url}/v2/pods/${id}/ports/8888/`)).status, 401, 'not without a key');
  const otherAccount = await g.newKey({ accountName: 'someone-else' });
  assert.equal((await fetch(`${g.url}/v2/pods/${id}/ports/8888/`, { headers: { authorization: `Bearer ${otherAccount}` } })).status, 404);
  assert.equal((await fetch(`${g.url}/v2/pods/${id}/ports/22/`, { headers: auth })).status, 404, 'a TCP port is not proxied');
  const ssh = running.runtime.ports.find((p: { private: number }) => p.private === 22);
  assert.deepEqual(running.ssh.direct, {
    host: '127.0.0.1',
    port: ssh.public,
    username: 'root',
    command: `ssh root@127.0.0.1 -p ${ssh.public}`,
  });
  const firstLog = await logText(id);
  assert.match(firstLog, new RegExp(`public key: ${KEY.replace(/\+/g, '\\+')}`));
  assert.match(firstLog, /note at start: none/);
  assert.ok(firstLog.includes(`jupyter password: ${password}`), 'the container gets it');
  const volumeDir = join(g.dataDir, 'pods', id);
  assert.equal(readFileSync(join(volumeDir, 'note.txt'), 'utf8'), 'written at the first start');

  const illegal = await g.call('POST', `/v2/pods/${id}/action`, { action: 'start' });
  assert.equal(illegal.statusCode, 409);
  assertReferenceShape('ErrorResponse', problem(illegal));

  const stopped = await g.call('POST', `/v2/pods/${id}/action`, { action: 'stop' });
  assert.equal(stopped.statusCode, 200, stopped.body);
  assertReferenceShape('Pod', stopped.json());
  assert.equal(stopped.json().status, 'EXITED');
  assert.equal(stopped.json().runtime, null);
  assert.equal(await freeL4(), 'MEDIUM', 'a stopped pod gives its GPUs back');
  assert.equal((await fetch(`${g.url}/v2/pods/${id}/ports/8888/`, { headers: auth })).status, 409, 'a stopped pod serves nothing');
  assert.equal((await containersOf(g.dataDir)).filter((c) => c.Labels['gantry.pod'] === id).length, 0);

  const started = await g.call('POST', `/v2/pods/${id}/action`, { action: 'start' });
  assert.equal(started.statusCode, 200, started.body);
  await eventually(
    async () => (await podOf(id)).status === 'RUNNING' && (await logText(id)).includes('note at start: written at the first start'),
    60_000,
    200,
  );
  assert.equal(await freeL4(), 'NONE');

  const listed = await g.call('GET', '/v2/pods');
  assertReferenceShape('ListPodsResponse', listed.json());
  assert.deepEqual(
    listed.json().pods.map((p: { id: string }) => p.id),
    [id],
  );

  const deleted = await g.call('DELETE', `/v2/pods/${id}`);
  assert.equal(deleted.statusCode, 204, deleted.body);
  assert.equal((await g.call('GET', `/v2/pods/${id}`)).statusCode, 404);
  assert.equal(existsSync(volumeDir), false, 'the volume directory is removed');
  assert.equal((await containersOf(g.dataDir)).filter((c) => c.Labels['gantry.pod'] === id).length, 0, 'the container is gone');
  assert.equal(await freeL4(), 'MEDIUM');
});

test(
  'a pod that does not fit answers 400; a locked pod cannot be stopped; a patch of a running pod waits for the next start',
  { skip },
  async () => {
    const tooMany = await g.call('POST', '/v2/pods', { name: 'big', image: WORKER_IMAGE, gpu: { id: GPU, count: 3 } });
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    assert.match(problem(tooMany).detail, /cannot be placed/);
    const both = await g.call('POST', '/v2/pods', { name: 'x', image: WORKER_IMAGE, gpu: { id: GPU }, cpu: { id: 'cpu3c', vcpuCount: 2 } });
    assert.equal(both.statusCode, 400);

    const volume = await g.call('POST', '/v2/network-volumes', { name: 'shared', size: 10, dataCenter: 'LOCAL' });
    assert.equal(volume.statusCode, 201, volume.body);
    const volumeId = volume.json().id as string;
    writeFileSync(join(g.services.config.volumeRoot, volumeId, 'model.txt'), 'weights');
    const created = await g.call('POST', '/v2/pods', {
      name: 'cpu-pod',
      image: WORKER_IMAGE,
      cmd: ['-e', 'console.log("model: " + require("node:fs").readFileSync("/data/model.txt", "utf8")); setInterval(() => {}, 1000)'],
      cpu: { id: 'cpu3c', vcpuCount: 2 },
      mounts: { network: [{ volumeId, path: '/data' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    await eventually(async () => (await podOf(id)).status === 'RUNNING', 60_000, 200);
    const patched = await g.call('PATCH', `/v2/pods/${id}`, { env: { MODE: 'two' }, ports: ['7000/http'], locked: true });
    assert.equal(patched.statusCode, 200, patched.body);
    assertReferenceShape('Pod', patched.json());
    assert.deepEqual(patched.json().pendingRestart, ['env', 'ports']);
    const auth = { authorization: `Bearer ${g.adminKey}` };
    const early = await fetch(`${g.url}/v2/pods/${id}/ports/7000/`, { headers: auth });
    assert.equal(early.status, 409);
    assert.match((await early.json()).detail, /port 7000 was added after pod \w+ started: it is published at its next start/);
    assert.deepEqual(patched.json().actions, []);
    const refused = await g.call('POST', `/v2/pods/${id}/action`, { action: 'stop' });
    assert.equal(refused.statusCode, 409);
    assert.match(problem(refused).detail, /locked/);
    assert.equal((await g.call('PATCH', `/v2/pods/${id}`, { locked: false })).statusCode, 200);
    assert.equal((await g.call('POST', `/v2/pods/${id}/action`, { action: 'restart' })).statusCode, 200);
    const restarted = await eventually(
      async () => {
        const pod = await podOf(id);
        return pod.status === 'RUNNING' && pod;
      },
      60_000,
      200,
    );
    assert.deepEqual(restarted.pendingRestart, []);
    assert.deepEqual(restarted.mounts, { network: [{ volumeId, path: '/data' }] });
    const nothingListens = await fetch(`${g.url}/v2/pods/${id}/ports/7000/`, { headers: auth });
    assert.equal(nothingListens.status, 502);
    assert.match((await nothingListens.json()).detail, new RegExp(`^pod ${id}'s port 7000 failed before answering`));
    // The container's line comes through Docker's log stream after the status: wait for it.
    await settles(async () => assert.match(await logText(id), /model: weights/, 'the network volume is mounted at its path'), 10_000);
    assert.equal((await g.call('DELETE', `/v2/network-volumes/${volumeId}`)).statusCode, 409, 'not while a pod mounts it');
    assert.equal((await g.call('DELETE', `/v2/pods/${id}`)).statusCode, 204);
    assert.equal((await g.call('DELETE', `/v2/network-volumes/${volumeId}`)).statusCode, 204);
  },
);

test('the legacy GraphQL pod operations act on the same pods: create, list, stop, resume, terminate', { skip }, async () => {
  const created = sdkRead(
    await graphql(
      g,
      `mutation { podFindAndDeployOnDemand( input: { name: "legacy", imageName: "${WORKER_IMAGE}", cloudType: ALL, dataCenterId: null, gpuTypeId: "${GPU}", gpuCount: 1, supportPublicIp: true, volumeInGb: 10, containerDiskInGb: 10, dockerArgs: "-e 'setInterval(() => {}, 1000)'", ports: "8888/http, 22/tcp", volumeMountPath: "/workspace", env: [{ key: "MODE", value: "legacy" }] } ) { id imageName env machineId machine { podHostId } } }`,
    ),
  ).podFindAndDeployOnDemand as { id: string; imageName: string; env: string[] };
  assert.equal(created.imageName, WORKER_IMAGE);
  assert.deepEqual(created.env, ['MODE=legacy']);
  const rest = await podOf(created.id);
  assert.deepEqual(
    [rest.gpu, rest.ports, rest.mounts.persistent],
    [{ id: GPU, count: 1 }, ['8888/http', '22/tcp'], { size: 10, path: '/workspace' }],
  );
  await eventually(async () => (await podOf(created.id)).status === 'RUNNING', 60_000, 200);

  const listed = sdkRead(await graphql(g, SDK_GET_PODS)).myself as {
    pods: { id: string; desiredStatus: string; runtime: { ports: unknown[] }; machine: { gpuDisplayName: string } }[];
  };
  const mine = listed.pods.find((p) => p.id === created.id)!;
  assert.equal(mine.desiredStatus, 'RUNNING');
  assert.equal(mine.machine.gpuDisplayName, g.services.catalog.gpuType(GPU)!.name, "the GPU's display name, as gpuTypes shows it");
  assert.equal(mine.runtime.ports.length, 2);

  const stopped = sdkRead(await graphql(g, `mutation { podStop(input: {podId: "${created.id}"}) { id desiredStatus } }`)).podStop;
  assert.deepEqual(stopped, { id: created.id, desiredStatus: 'EXITED' });
  assert.equal((await podOf(created.id)).status, 'EXITED');
  const resumed = sdkRead(
    await graphql(g, `mutation { podResume(input: {podId: "${created.id}", gpuCount: 1}) { id desiredStatus } }`),
  ).podResume;
  assert.deepEqual(resumed, { id: created.id, desiredStatus: 'RUNNING' });
  const again = sdkRead(await graphql(g, SDK_GET_POD(created.id))).pod as { id: string };
  assert.equal(again.id, created.id);
  sdkRead(await graphql(g, `mutation { podTerminate(input: {podId: "${created.id}"}) }`));
  assert.equal((await g.call('GET', `/v2/pods/${created.id}`)).statusCode, 404);
});
