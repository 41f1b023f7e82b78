// How a pod's launch becomes a container's settings, without an engine: published ports, storage,
// the container disk where the driver can limit it, GPUs and the labels that keep it from the
// orphan sweep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planPodContainer, type PodEngineFacts } from '../src/runtime/docker/pod-containers.js';
import type { PodLaunch } from '../src/runtime/pod-engine.js';

const LAUNCH: PodLaunch = {
  podId: 'pod123',
  image: 'acme/notebook:1',
  entrypoint: [],
  cmd: [],
  env: { PUBLIC_KEY: 'ssh-ed25519 AAAA test' },
  ports: [
    { port: 8888, protocol: 'http' },
    { port: 22, protocol: 'tcp' },
  ],
  gpuDeviceIds: [],
  vcpuCount: 2,
  memoryGb: 4,
  diskGb: 30,
  mounts: [{ hostPath: '/data/pods/pod123', path: '/workspace' }],
};
const ENGINE: PodEngineFacts = { cpus: 8, nvidia: false, diskLimit: { supported: true } };
const plan = (launch: Partial<PodLaunch> = {}, engine: Partial<PodEngineFacts> = {}) =>
  planPodContainer({ ...LAUNCH, ...launch }, { instanceId: 'inst', replicaId: 'r1' }, { ...ENGINE, ...engine });

test('HTTP ports are published on loopback only (the proxy reaches them); TCP ports on every interface', () => {
  const { options } = plan();
  assert.deepEqual(options.HostConfig!.PortBindings, {
    '8888/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }],
    '22/tcp': [{ HostIp: '', HostPort: '' }],
  });
});

test('the persistent volume is bound at its mount path and the pod is labelled as a pod', () => {
  const { options } = plan();
  assert.deepEqual(options.HostConfig!.Binds, ['/data/pods/pod123:/workspace']);
  assert.equal(options.Labels!['gantry.pod'], 'pod123');
  assert.equal(options.Labels!['gantry.worker'], undefined);
});

test('the container disk caps the writable layer where the driver can, and the log says when it cannot', () => {
  assert.deepEqual(plan().options.HostConfig!.StorageOpt, { size: '30G' });
  const unlimited = plan({}, { diskLimit: { supported: false, reason: 'storage driver overlay2 on extfs cannot' } });
  assert.equal(unlimited.options.HostConfig!.StorageOpt, undefined);
  assert.match(unlimited.notes.join('\n'), /container disk of 30 GB not enforced: storage driver overlay2 on extfs/);
});

test('GPUs placed for the pod are requested from the NVIDIA runtime, or held with a note where there is none', () => {
  assert.deepEqual(plan({ gpuDeviceIds: ['0', '1'] }, { nvidia: true }).options.HostConfig!.DeviceRequests, [
    { Driver: 'nvidia', DeviceIDs: ['0', '1'], Capabilities: [['gpu']] },
  ]);
  const held = plan({ gpuDeviceIds: ['0'] });
  assert.equal(held.options.HostConfig!.DeviceRequests, undefined);
  assert.match(held.notes.join('\n'), /GPUs 0 are held for the pod but not exposed/);
});
