// How a worker's spec becomes a container's settings, without an engine: the command rule,
// env, labels, CPU and GPU requests, and the ports of bridge networking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planContainer, type ContainerPlanInputs } from '../src/runtime/docker/container-config.js';
import { followsLatest, registryOf } from '../src/runtime/docker/image-reference.js';
import type { WorkerSpec } from '../src/runtime/provider.js';
import { diskLimitSupport } from '../src/runtime/docker/disk-limit.js';

const SPEC: WorkerSpec = {
  workerId: 'abc123-w1',
  endpointId: 'abc123',
  version: 3,
  image: 'acme/worker:1',
  entrypoint: [],
  cmd: [],
  env: { MODEL: 'small' },
  gpuDeviceIds: [],
  vcpuCount: 2,
  memoryGb: null,
  ports: [],
  diskGb: 5,
};
const plan = (spec: Partial<WorkerSpec> = {}, inputs: Partial<ContainerPlanInputs> = {}) =>
  planContainer({
    spec: { ...SPEC, ...spec },
    network: 'host',
    instanceId: 'inst',
    replicaId: 'replica-1',
    hostCpus: 8,
    diskLimit: { supported: true },
    ...inputs,
  });

test("with no entrypoint or cmd the image's own command runs: neither is sent", () => {
  const { options } = plan();
  assert.equal('Entrypoint' in options, false);
  assert.equal('Cmd' in options, false);
});

test('a cmd replaces CMD only; an entrypoint replaces ENTRYPOINT and sends an empty CMD', () => {
  assert.deepEqual([plan({ cmd: ['serve'] }).options.Entrypoint, plan({ cmd: ['serve'] }).options.Cmd], [undefined, ['serve']]);
  const both = plan({ entrypoint: ['python', '-u'], cmd: ['handler.py'] }).options;
  assert.deepEqual([both.Entrypoint, both.Cmd], [['python', '-u'], ['handler.py']]);
  const entrypointOnly = plan({ entrypoint: ['/start.sh'] }).options;
  assert.deepEqual([entrypointOnly.Entrypoint, entrypointOnly.Cmd], [['/start.sh'], []]);
});

test("env is the spec's plus the worker's ids; CPU workers see no GPU", () => {
  const env = plan().options.Env!;
  assert.ok(env.includes('MODEL=small'));
  assert.ok(env.includes('GANTRY_WORKER_ID=abc123-w1'));
  assert.ok(env.includes('NVIDIA_VISIBLE_DEVICES=void'));
  assert.equal(plan().options.HostConfig!.DeviceRequests, undefined);
});

test('GPUs are requested from the NVIDIA driver by the device ids the worker was placed on', () => {
  const { options } = plan({ gpuDeviceIds: ['1', '3'] });
  assert.deepEqual(options.HostConfig!.DeviceRequests, [{ Driver: 'nvidia', DeviceIDs: ['1', '3'], Capabilities: [['gpu']] }]);
  assert.ok(options.Env!.includes('NVIDIA_VISIBLE_DEVICES=1,3'));
});

test("vCPUs become a CPU quota, capped to the host's CPUs with a note saying so", () => {
  assert.equal(plan().options.HostConfig!.NanoCpus, 2e9);
  const capped = plan({ vcpuCount: 16 });
  assert.equal(capped.options.HostConfig!.NanoCpus, 8e9);
  assert.match(capped.notes[0]!, /capped to the host's 8 \(the endpoint asks for 16\)/);
  assert.equal(plan({ vcpuCount: null }).options.HostConfig!.NanoCpus, undefined);
});

test("a CPU worker's memory is limited to its flavor's; a GPU worker's is not", () => {
  assert.equal(plan({ memoryGb: 4 }).options.HostConfig!.Memory, 4 * 1024 ** 3);
  assert.equal(plan({ memoryGb: null }).options.HostConfig!.Memory, undefined);
});

test('every container is labelled with its instance, replica, endpoint and worker', () => {
  assert.deepEqual(plan().options.Labels, {
    gantry: '1',
    'gantry.instance': 'inst',
    'gantry.replica': 'replica-1',
    'gantry.endpoint': 'abc123',
    'gantry.worker': 'abc123-w1',
  });
  assert.equal(plan().options.name, 'gantry-abc123-w1');
});

test('bridge networking publishes PORT and PORT_HEALTH on loopback and lets the container reach the host', () => {
  const { options } = plan(
    { http: { port: 80, healthPort: 8081 } },
    { network: 'bridge', publishedPorts: { port: 40001, healthPort: 40002 } },
  );
  assert.equal(options.HostConfig!.NetworkMode, 'bridge');
  assert.deepEqual(options.HostConfig!.PortBindings, {
    '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '40001' }],
    '8081/tcp': [{ HostIp: '127.0.0.1', HostPort: '40002' }],
  });
  assert.deepEqual(options.HostConfig!.ExtraHosts, ['host.docker.internal:host-gateway']);
  assert.equal(
    plan({ http: { port: 80, healthPort: 80 } }).options.HostConfig!.PortBindings,
    undefined,
    'host networking publishes nothing',
  );
});

test('image references: the registry they are pulled from, and whether their tag moves', () => {
  assert.equal(registryOf('ubuntu'), 'docker.io');
  assert.equal(registryOf('runpod/worker:1'), 'docker.io');
  assert.equal(registryOf('ghcr.io/acme/worker:1'), 'ghcr.io');
  assert.equal(registryOf('127.0.0.1:5000/worker'), '127.0.0.1:5000');
  assert.equal(registryOf('localhost/worker:2'), 'localhost');
  assert.equal(followsLatest('ubuntu'), true);
  assert.equal(followsLatest('acme/worker:latest'), true);
  assert.equal(followsLatest('127.0.0.1:5000/worker'), true);
  assert.equal(followsLatest('127.0.0.1:5000/worker:1'), false);
  assert.equal(followsLatest('acme/worker@sha256:abc'), false);
});

test("the endpoint's other ports are published on loopback ports the engine picks; PORT keeps its own", () => {
  const { options } = plan(
    { http: { port: 80, healthPort: 80 }, ports: ['80/http', '8888/http', '22/tcp', '53/udp'] },
    { network: 'bridge', publishedPorts: { port: 40001, healthPort: 40001 } },
  );
  assert.deepEqual(options.HostConfig!.PortBindings, {
    '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '40001' }],
    '8888/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }],
    '22/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }],
    '53/udp': [{ HostIp: '127.0.0.1', HostPort: '' }],
  });
  assert.deepEqual(Object.keys(options.ExposedPorts!), ['80/tcp', '8888/tcp', '22/tcp', '53/udp']);
});

test('a queue worker publishes its ports in bridge mode; host networking publishes nothing and says so', () => {
  const bridged = plan({ ports: ['8888/http'] }, { network: 'bridge' });
  assert.deepEqual(bridged.options.HostConfig!.PortBindings, { '8888/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] });
  const host = plan({ ports: ['8888/http'] });
  assert.equal(host.options.HostConfig!.PortBindings, undefined);
  assert.match(host.notes.join('\n'), /host networking: the ports 8888\/http are the host's own/);
});

test('disk limits the writable layer where the driver can; otherwise the log says it is not enforced', () => {
  assert.deepEqual(plan({ diskGb: 20 }).options.HostConfig!.StorageOpt, { size: '20G' });
  const unlimited = plan({ diskGb: 20 }, { diskLimit: { supported: false, reason: 'storage driver overlay2 on extfs cannot' } });
  assert.equal(unlimited.options.HostConfig!.StorageOpt, undefined);
  assert.match(unlimited.notes.join('\n'), /container disk of 20 GB not enforced: storage driver overlay2 on extfs/);
});

test('which storage drivers can limit a container disk', () => {
  assert.equal(diskLimitSupport({ Driver: 'btrfs' }).supported, true);
  assert.equal(diskLimitSupport({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'xfs']] }).supported, true);
  const ext = diskLimitSupport({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'extfs']] });
  assert.equal(ext.supported, false);
  assert.match(ext.supported ? '' : ext.reason, /overlay2 on extfs cannot limit/);
});
