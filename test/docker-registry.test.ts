// Private images: the Docker provider pulls with the registry login it is given, and a pull the
// registry refuses fails the start naming the image, the registry and its answer. The registry is
// Debian's docker-registry on loopback with htpasswd auth (the engine allows plain HTTP there).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker, dockerSkipReason, WORKER_IMAGE } from './support/docker.js';
import { eventually } from './support/live.js';
import { freePort } from '../src/runtime/free-ports.js';
import { DockerProvider } from '../src/runtime/docker/docker-provider.js';
import type { WorkerSpec } from '../src/runtime/provider.js';

const LOGIN = { username: 'alice', password: 's3cret-pass' };
const tools = ['docker-registry', 'htpasswd'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const dockerSkip = await dockerSkipReason();
const toolsSkip = tools.length > 0 ? `${tools.join(' and ')} missing: apt-get install docker-registry apache2-utils` : undefined;
if (!dockerSkip && toolsSkip) {
  if (process.env.GANTRY_TEST_DOCKER_REQUIRED) throw new Error(toolsSkip);
  process.stdout.write(`# private registry tests SKIPPED - ${toolsSkip}\n`);
}
const skip = dockerSkip ?? toolsSkip;

const dir = mkdtempSync(join(tmpdir(), 'gantry-registry-'));
let registry: ChildProcess | undefined;
let image = '';
const instanceId = `test-registry-${process.pid}`;

before(async () => {
  if (skip) return;
  const port = await freePort();
  image = `127.0.0.1:${port}/gantry-test/private:1`;
  const hash = spawnSync('htpasswd', ['-Bbn', LOGIN.username, LOGIN.password], { encoding: 'utf8' });
  writeFileSync(join(dir, 'htpasswd'), hash.stdout);
  writeFileSync(join(dir, 'config.yml'), [
    'version: 0.1', 'log: {level: error}', `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
    `http: {addr: "127.0.0.1:${port}"}`, `auth: {htpasswd: {realm: gantry-test, path: ${join(dir, 'htpasswd')}}}`,
  ].join('\n'));
  registry = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  await eventually(async () => (await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.status === 401, 10_000, 50);
  // Push the test image there, then drop the local tag so starting a worker has to pull it.
  await docker.getImage(WORKER_IMAGE).tag({ repo: image.slice(0, image.lastIndexOf(':')), tag: '1' });
  const push = await docker.getImage(image).push({ authconfig: { ...LOGIN, serveraddress: `127.0.0.1:${port}` } });
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(push, (err, out: { error?: string }[]) => {
    const failed = err?.message ?? out.find((e) => e.error)?.error;
    if (failed) reject(new Error(failed));
    else resolve();
  }));
  await docker.getImage(image).remove();
});

after(async () => {
  if (!skip) {
    for (const c of await docker.listContainers({ all: true, filters: { label: [`gantry.instance=${instanceId}`] } })) {
      await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    }
    await docker.getImage(image).remove({ force: true }).catch(() => undefined);
  }
  registry?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const spec = (workerId: string): WorkerSpec => ({
  workerId, endpointId: 'private', version: 1, image, entrypoint: ['/bin/sh', '-c', 'echo "running the private image"; sleep 60'],
  cmd: [], env: {}, gpuDeviceIds: [], vcpuCount: 1,
});

test('an image the registry refuses to an anonymous pull fails the start with the registry answer', { skip }, async () => {
  const provider = new DockerProvider({ network: 'host', instanceId, replicaId: 'test' });
  await assert.rejects(provider.start(spec('anonymous')), (error: Error) => {
    assert.ok(error.message.startsWith(`cannot pull image '${image}' from ${image.split('/')[0]}: `), error.message);
    assert.match(error.message, /no basic auth credentials|unauthorized|authentication required/i);
    return true;
  });
  await provider.close();
});

test('with the registry login the image is pulled, with its progress in the worker log, and runs', { skip }, async () => {
  const provider = new DockerProvider({ network: 'host', instanceId, replicaId: 'test', registryLogin: async () => LOGIN });
  await provider.start(spec('with-login'));
  await eventually(async () => provider.logs('with-login', 50).some((l) => l.line === 'running the private image'), 10_000, 50);
  const lines = provider.logs('with-login', 50).map((l) => l.line);
  assert.ok(lines.includes(`pulling ${image} from ${image.split('/')[0]} as alice`), lines.join('\n'));
  assert.ok(lines.includes(`pulled ${image}`));
  await provider.stop('with-login', 1000);
  assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`gantry.instance=${instanceId}`] } }), []);
  await provider.close();
});
