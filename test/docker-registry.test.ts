// Private images: the Docker provider pulls with the registry login it is given, and a pull the
// registry refuses fails the start naming the image, the registry and its answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { docker, dockerSkipReason, removeInstanceContainers } from './support/docker.js';
import { eventually } from './support/live.js';
import { privateRegistrySkipReason, startPrivateRegistry, type PrivateRegistry } from './support/private-registry.js';
import { DockerProvider } from '../src/runtime/docker/docker-provider.js';
import type { WorkerSpec } from '../src/runtime/provider.js';
import { aWorkerSpec } from './support/worker-specs.js';

const LOGIN = { username: 'alice', password: 's3cret-pass' };
const dockerSkip = await dockerSkipReason();
const skip = dockerSkip ?? privateRegistrySkipReason();

let registry: PrivateRegistry | undefined;
let image = '';
const instanceId = `test-registry-${process.pid}`;

before(async () => {
  if (skip) return;
  registry = await startPrivateRegistry(LOGIN, 'gantry-test/private');
  image = registry.image;
});

after(async () => {
  if (!skip) await removeInstanceContainers(instanceId);
  await registry?.close();
});

const spec = (workerId: string): WorkerSpec =>
  aWorkerSpec({ workerId, endpointId: 'private', image, entrypoint: ['/bin/sh', '-c', 'echo "running the private image"; sleep 60'] });

test('an image the registry refuses to an anonymous pull fails the start with the registry answer', { skip }, async () => {
  const provider = new DockerProvider({ network: 'host', instanceId, replicaId: 'test' });
  await assert.rejects(provider.start(spec('anonymous')), (error: Error) => {
    assert.ok(error.message.startsWith(`cannot pull image '${image}' from ${image.split('/')[0]}: `), error.message);
    assert.match(error.message, /no basic auth credentials|unauthorized|authentication required/i);
    return true;
  });
  await provider.close(0);
});

test('with the registry login the image is pulled, with its progress in the worker log, and runs', { skip }, async () => {
  const provider = new DockerProvider({ network: 'host', instanceId, replicaId: 'test', registryLogin: async () => LOGIN });
  await provider.start(spec('with-login'));
  await eventually(async () => provider.logs('with-login', 50).some((l) => l.line === 'running the private image'), 10_000, 50);
  const lines = provider.logs('with-login', 50).map((l) => l.line);
  assert.ok(lines.includes(`pulling ${image} from ${image.split('/')[0]} with a registry login`), lines.join('\n'));
  assert.ok(!lines.some((line) => line.includes(LOGIN.username) || line.includes(LOGIN.password)), 'the login itself is never logged');
  assert.ok(lines.includes(`pulled ${image}`));
  await provider.stop('with-login', 1000);
  assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`gantry.instance=${instanceId}`] } }), []);
  await provider.close(0);
});
