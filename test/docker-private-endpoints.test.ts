// An endpoint whose image is in a private registry: Gantry pulls it with the credential the
// endpoint's registry names, so jobs complete; with a wrong password the worker never starts and
// the crash-loop reason in /workers carries the registry's refusal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, runsync } from './support/live.js';
import { dockerSkipReason, useLiveOnDocker } from './support/docker.js';
import { privateRegistrySkipReason, startPrivateRegistry, type PrivateRegistry } from './support/private-registry.js';

const LOGIN = { username: 'bob', password: 'pull-me-privately' };
const dockerSkip = await dockerSkipReason();
const skip = dockerSkip ?? privateRegistrySkipReason();

let registry: PrivateRegistry;
before(async () => {
  if (skip) return;
  registry = await startPrivateRegistry(LOGIN, 'gantry-test/private-endpoint');
});
const g = useLiveOnDocker(skip, { scaleIntervalMs: '100', workerPingIntervalMs: '200', workerStopGraceMs: '1000', crashBackoffMs: '200' });
// Registered after the Gantry's own after(), so the registry outlives the workers pulling from it.
after(async () => {
  if (!skip) await registry.close();
});

async function credential(name: string, password: string): Promise<string> {
  const res = await g.call('POST', '/v2/registries', { name, username: LOGIN.username, password });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}
async function privateEndpoint(registryId: string, min: number, idleTimeout = 1): Promise<string> {
  const res = await g.call('POST', '/v2/serverless', {
    name: 'private-image',
    type: 'QUEUE',
    image: registry.image,
    registry: registryId,
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min, max: 1, idleTimeout },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

// First, while the engine does not have the image yet: a pull that works would leave it there.
test('a wrong password: the crash-loop reason in /workers names the image, the registry and its refusal', { skip }, async () => {
  const id = await privateEndpoint(await credential('wrong', 'not-the-password'), 1);
  const view = await eventually(
    async () => {
      const v = (await g.call('GET', `/v2/serverless/${id}/workers`)).json();
      return v.crashLoop?.lastReason && v;
    },
    30_000,
    100,
  );
  process.stdout.write(`# crash-loop reason: ${view.crashLoop.lastReason}\n`);
  assert.ok(
    view.crashLoop.lastReason.includes(`cannot pull image '${registry.image}' from ${registry.address}: `),
    view.crashLoop.lastReason,
  );
  assert.match(view.crashLoop.lastReason, /unauthorized|authentication required|401/i);
  assert.ok(!view.crashLoop.lastReason.includes('not-the-password'));
  await g.call('DELETE', `/v2/serverless/${id}`);
});

test('the right credential: the image is pulled with it and the endpoint completes a job', { skip }, async () => {
  await registry.forgetImage();
  // A long idle timeout keeps the worker, and its log, until the test has read it.
  const credentialId = await credential('right', LOGIN.password);
  const id = await privateEndpoint(credentialId, 0, 60);
  const result = await runsync(g, id, { echo: 'private' });
  assert.deepEqual([result.status, result.output], ['COMPLETED', 'private']);
  const [worker] = g.services.runtime!.workersOf(id);
  assert.ok(worker, 'the worker is still running');
  const lines = g.services.runtime!.logs(id, worker.workerId, 200).map((l) => l.line);
  assert.ok(
    lines.includes(`pulling ${registry.image} from ${registry.address} with registry credential ${credentialId} ('right')`),
    lines.join('\n'),
  );
  assert.ok(
    !lines.some((line) => line.includes(LOGIN.username) || line.includes(LOGIN.password)),
    'write-only: not in the worker log either',
  );
  await g.call('DELETE', `/v2/serverless/${id}`);
});
