// A registry that accepts the engine's connection and then never answers holds an image pull
// forever. Gantry gives such a pull up when the engine has said nothing for a while, and at
// shutdown at once, so neither an endpoint's next release nor the process waits on it. Needs an
// engine (skipped, visibly, without one); the registry is a socket on loopback that answers the
// version check and then hangs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { docker, dockerSkipReason } from './support/docker.js';
import { ImagePuller } from '../src/runtime/docker/image-puller.js';
import { DockerProvider } from '../src/runtime/docker/docker-provider.js';
import { aWorkerSpec } from './support/worker-specs.js';

const skip = await dockerSkipReason();
let registry: Server;
let image: string;
let answered = 0;

before(async () => {
  if (skip) return;
  registry = createServer((req, res) => {
    if (req.url === '/v2/') return void res.writeHead(200, { 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
    answered += 1; // the manifest: never answered
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  image = `127.0.0.1:${(registry.address() as AddressInfo).port}/stalled/worker:v1`;
});
after(() => {
  registry?.closeAllConnections();
  registry?.close();
});

test('a pull the engine says nothing of is given up after the silence limit, naming the image', { skip }, async () => {
  const puller = new ImagePuller(docker, 1500);
  const started = Date.now();
  await assert.rejects(puller.ensure(image, undefined, { log: () => undefined }), (error: Error) => {
    assert.match(error.message, new RegExp(`cannot pull image '${image.replace(/[.]/g, '\\.')}'`));
    assert.match(error.message, /reported nothing for 1\.5 s/);
    return true;
  });
  assert.ok(answered > 0, 'the engine reached the registry');
  assert.ok(Date.now() - started < 20_000, `given up in ${Date.now() - started} ms`);
});

test('closing the provider ends a start held up by a stalled pull, and makes no container', { skip }, async () => {
  const provider = new DockerProvider({ network: 'host', instanceId: 'stalled-pull-test', replicaId: 'r1' });
  const start = provider.start(aWorkerSpec({ workerId: 'stalled-1', image }));
  const outcome = start.then(
    () => 'started',
    (error: Error) => error.message,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const closed = Date.now();
  await provider.close(0);
  const message = await outcome;
  assert.match(message, /shutting down/);
  assert.ok(Date.now() - closed < 10_000, `the start ended ${Date.now() - closed} ms after close`);
  const left = await docker.listContainers({ all: true, filters: { label: ['gantry.instance=stalled-pull-test'] } });
  assert.deepEqual(left, []);
});
