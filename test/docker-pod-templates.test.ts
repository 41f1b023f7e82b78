// Pods from templates on a real Docker engine: a pod template's image, command, env, ports, disk
// and volume reach a pod created with its templateId, the request's own fields winning and env
// merging per key; the container runs with the result; a PATCH naming another template applies
// its container settings. A CPU pod takes no volume from it; an unknown template is 404, a
// serverless one 422; the legacy GraphQL create takes one too, with or without imageName (which
// wins). Needs an engine and the test image; skipped, visibly, without them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/live.js';
import { dockerSkipReason, useLiveOnDocker, WORKER_IMAGE } from './support/docker.js';
import { FIXTURE_CATALOG, problem } from './support/harness.js';
import { assertReferenceShape } from './support/reference-schemas.js';
import { graphql, sdkRead } from './support/graphql-clients.js';

const skip = await dockerSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'gantry-pod-templates-'));
const capacityFile = join(dir, 'capacity.json');
writeFileSync(capacityFile, JSON.stringify({ gpus: [{ type: 'NVIDIA L4', count: 1, cudaVersion: '12.4' }] }));
const SCRIPT = `console.log('env: ' + process.env.A + ' ' + process.env.B + ' ' + process.env.C);
require('node:http').createServer((q, s) => s.end('up')).listen(8888, () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));`;

const g = useLiveOnDocker(skip, { catalogFile: FIXTURE_CATALOG, capacityFile, workerStopGraceMs: '1000' });
after(() => rmSync(dir, { recursive: true, force: true }));

const template = async (body: Record<string, unknown>) => {
  const res = await g.call('POST', '/v2/templates', { startSsh: false, startJupyter: false, ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
};
const logText = async (id: string) => {
  const res = await fetch(`${g.url}/v2/pods/${id}/logs?tail=500&follow=false`, { headers: { authorization: `Bearer ${g.adminKey}` } });
  return res.text();
};

test('a pod made from a template runs with its settings, the request overriding and merging env', { skip }, async () => {
  const templateId = await template({
    name: 'notebook',
    image: WORKER_IMAGE,
    cmd: ['-e', SCRIPT],
    ports: ['8888/http'],
    env: { A: 'template-a', B: 'template-b' },
    disk: 12,
    mounts: { persistent: { size: 20, path: '/workspace' } },
    allowedCudaVersions: ['12.4'],
  });
  const created = await g.call('POST', '/v2/pods', {
    name: 'from-template',
    templateId,
    gpu: { id: 'NVIDIA L4' },
    env: { B: 'body-b', C: 'body-c' },
    disk: 8,
  });
  assert.equal(created.statusCode, 201, created.body);
  assertReferenceShape('Pod', created.json());
  const pod = created.json();
  assert.equal(pod.image, WORKER_IMAGE);
  assert.deepEqual(pod.cmd, ['-e', SCRIPT]);
  assert.deepEqual(pod.ports, ['8888/http']);
  assert.deepEqual(pod.env, { A: 'template-a', B: 'body-b', C: 'body-c' }, 'env merges per key, the request winning');
  assert.equal(pod.disk, 8, "the request's disk wins");
  assert.deepEqual(pod.mounts, { persistent: { size: 20, path: '/workspace' } }, "the template's volume");
  assert.equal(pod.template, null, 'no link to the template is kept');
  await eventually(async () => (await logText(pod.id)).includes('listening'), 60_000, 200);
  assert.match(await logText(pod.id), /env: template-a body-b body-c/, 'the container runs with the merged settings');

  // A PATCH naming a template applies its container settings (not its mounts) at the next start; env replaces the pod's.
  const other = await template({ name: 'other', image: `${WORKER_IMAGE}-other`, ports: ['9000/http'], env: { D: 'other-d' }, disk: 30 });
  const patched = await g.call('PATCH', `/v2/pods/${pod.id}`, { templateId: other, env: { E: 'body-e' }, disk: 9 });
  assert.equal(patched.statusCode, 200, patched.body);
  assertReferenceShape('Pod', patched.json());
  const changed = patched.json();
  assert.equal(changed.image, `${WORKER_IMAGE}-other`);
  assert.deepEqual(changed.env, { D: 'other-d', E: 'body-e' });
  assert.deepEqual(changed.ports, ['9000/http']);
  assert.equal(changed.disk, 9);
  assert.deepEqual(changed.cmd, [], "the other template's (empty) command");
  assert.deepEqual(changed.mounts, { persistent: { size: 20, path: '/workspace' } }, 'mounts are not applied by a PATCH');
  assert.deepEqual([...changed.pendingRestart].sort(), ['args', 'cmd', 'disk', 'env', 'image', 'ports']);
  assert.equal((await g.call('PATCH', `/v2/pods/${pod.id}`, { templateId: 'nosuchtemplate' })).statusCode, 404);
  assert.equal((await g.call('DELETE', `/v2/pods/${pod.id}`)).statusCode, 204);

  // A CPU pod takes the settings but never the volume; sent mounts replace the template's.
  const cpu = await g.call('POST', '/v2/pods', { name: 'cpu-from-template', templateId, cpu: { id: 'cpu3c', vcpuCount: 2 } });
  assert.equal(cpu.statusCode, 201, cpu.body);
  assert.deepEqual(cpu.json().mounts, {});
  assert.equal(cpu.json().disk, 12, "the template's disk");
  assert.equal((await g.call('DELETE', `/v2/pods/${cpu.json().id}`)).statusCode, 204);

  // The legacy GraphQL create takes the template when it names no image.
  const legacy = sdkRead(
    await graphql(
      g,
      `mutation { deployCpuPod(input: { name: "gql-from-template", templateId: "${templateId}", instanceId: "cpu3c-2-4", cloudType: SECURE }) { id imageName env volumeInGb } }`,
    ),
  ).deployCpuPod as { id: string; imageName: string; env: string[]; volumeInGb: number };
  assert.equal(legacy.imageName, WORKER_IMAGE);
  assert.deepEqual(legacy.env, ['A=template-a', 'B=template-b']);
  assert.equal(legacy.volumeInGb, 0, 'a CPU pod takes no volume');
  assert.equal((await g.call('DELETE', `/v2/pods/${legacy.id}`)).statusCode, 204);
});

test('the legacy GraphQL create with both imageName and templateId takes the template, imageName and env winning', { skip }, async () => {
  const templateId = await template({
    name: 'settings',
    image: 'gantry-test/not-this-image:1',
    cmd: ['-e', SCRIPT],
    ports: ['8888/http'],
    env: { A: 'template-a', B: 'template-b' },
    disk: 12,
  });
  const created = sdkRead(
    await graphql(
      g,
      `mutation { deployCpuPod(input: { name: "gql-image-and-template", imageName: "${WORKER_IMAGE}", templateId: "${templateId}", instanceId: "cpu3c-2-4", cloudType: SECURE, env: [{ key: "B", value: "gql-b" }] }) { id imageName env containerDiskInGb ports } }`,
    ),
  ).deployCpuPod as { id: string; imageName: string; env: string[]; containerDiskInGb: number; ports: string };
  assert.equal(created.imageName, WORKER_IMAGE, 'imageName wins over the template');
  assert.deepEqual(created.env, ['A=template-a', 'B=gql-b'], 'env merges per key, the input winning');
  assert.equal(created.containerDiskInGb, 12, "the template's disk");
  assert.equal(created.ports, '8888/http', "the template's ports");
  assert.deepEqual((await g.call('GET', `/v2/pods/${created.id}`)).json().cmd, ['-e', SCRIPT], "the template's command");
  await eventually(async () => (await logText(created.id)).includes('listening'), 60_000, 200);
  assert.match(await logText(created.id), /env: template-a gql-b undefined/, 'the container runs with them');
  assert.equal((await g.call('DELETE', `/v2/pods/${created.id}`)).statusCode, 204);

  // The SDK names runpod-ubuntu on every CPU create: with an image and no such template, it means nothing.
  const sdkDefault = sdkRead(
    await graphql(
      g,
      `mutation { deployCpuPod(input: { name: "sdk-default", imageName: "${WORKER_IMAGE}", templateId: "runpod-ubuntu", instanceId: "cpu3c-2-4", cloudType: SECURE, dockerArgs: "-e 'setInterval(() => {}, 1000)'" }) { id imageName } }`,
    ),
  ).deployCpuPod as { id: string; imageName: string };
  assert.equal(sdkDefault.imageName, WORKER_IMAGE);
  assert.equal((await g.call('DELETE', `/v2/pods/${sdkDefault.id}`)).statusCode, 204);
  // Any other template the caller cannot see is an error, as over REST.
  const unknown = (
    await graphql(
      g,
      `mutation { deployCpuPod(input: { name: "x", imageName: "${WORKER_IMAGE}", templateId: "nosuchtemplate", instanceId: "cpu3c-2-4" }) { id } }`,
    )
  ).json() as { errors: { message: string; extensions: { code: string } }[] };
  assert.equal(unknown.errors[0]!.extensions.code, 'NOT_FOUND', JSON.stringify(unknown));
  assert.match(unknown.errors[0]!.message, /template nosuchtemplate not found/);
});

test('templateId: unknown is 404, a serverless template 422, neither image nor template 422', { skip }, async () => {
  const unknown = await g.call('POST', '/v2/pods', { name: 'x', templateId: 'nosuchtemplate', cpu: { id: 'cpu3c', vcpuCount: 2 } });
  assert.equal(unknown.statusCode, 404, unknown.body);
  assertReferenceShape('ErrorResponse', problem(unknown));
  const serverless = await template({ name: 'worker', image: WORKER_IMAGE, serverless: true });
  const refused = await g.call('POST', '/v2/pods', { name: 'x', templateId: serverless, cpu: { id: 'cpu3c', vcpuCount: 2 } });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.match(problem(refused).errors?.join() ?? '', /templateId: .* serverless template/);
  const bare = await g.call('POST', '/v2/pods', { name: 'x', cpu: { id: 'cpu3c', vcpuCount: 2 } });
  assert.equal(bare.statusCode, 422, bare.body);
  assert.match(problem(bare).errors?.join() ?? '', /image: is required unless templateId is set/);
  assert.deepEqual((await g.call('GET', '/v2/pods')).json().pods, [], 'none of them made a pod');
});
