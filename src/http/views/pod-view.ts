// A pod as the API shows it: its stored configuration, its state and the actions that state
// allows, and while it runs what the engine measures and where its ports are published.
import type { Static } from '@sinclair/typebox';
import type { PodRecord } from '../../store/pod-store.js';
import type { PodEngine, PodRun } from '../../runtime/pod-engine.js';
import { allowedActions, podPorts } from '../../domain/pod.js';
import type { PodResponse } from '../schemas/pods.js';
import type { PodHourlyCost } from '../../services/billing/pod-rates.js';

export type PodView = Static<typeof PodResponse>;

export interface PodAddresses {
  /** The host name clients reach this deployment by (SSH). */
  sshHost: string;
  /** The public URL, under which /v2/pods/{id}/ports/{port}/ reaches HTTP ports. */
  publicUrl: string;
}

export async function podView(
  pod: PodRecord,
  cost: PodHourlyCost,
  engine: PodEngine | undefined,
  at: PodAddresses,
  /** The cluster's clock, which pods' runs are stamped with. */
  now: number,
): Promise<PodView> {
  const { spec } = pod;
  const run = pod.status === 'RUNNING' ? engine?.running(pod.id) : undefined;
  return {
    id: pod.id,
    name: spec.name,
    status: pod.status,
    desiredStatus: pod.status === 'TERMINATED' ? 'TERMINATED' : pod.placement ? 'RUNNING' : 'EXITED',
    actions: allowedActions(pod.status, spec.locked),
    image: spec.image,
    args: spec.args,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    disk: spec.disk,
    ports: spec.ports,
    env: spec.env,
    registry: spec.registry,
    mounts: {
      ...(spec.persistent ? { persistent: spec.persistent } : {}),
      ...(spec.network ? { network: [spec.network] } : {}),
    },
    ...(spec.gpu ? { gpu: { id: spec.gpu.typeId, count: spec.gpu.count } } : {}),
    ...(spec.cpu ? { cpu: { id: spec.cpu.flavorId, vcpuCount: spec.cpu.vcpuCount, memory: spec.cpu.memory } } : {}),
    cloud: spec.cloud,
    dataCenterId: pod.placement?.dataCenterId ?? null,
    cudaVersion: pod.placement?.cudaVersion ?? null,
    ssh: { proxy: null, direct: sshDirect(run, at.sshHost) },
    template: null,
    // What the pod is billed per hour in its state now (a stopped pod's volume included).
    cost: cost.current,
    locked: spec.locked,
    globalNetworking: { enabled: false },
    runtime: run && engine ? await runtimeView(pod.id, run, engine, now) : null,
    http: podPorts(spec.ports)
      .filter((p) => p.protocol === 'http')
      .map((p) => ({ port: p.port, url: `${at.publicUrl}/v2/pods/${pod.id}/ports/${p.port}/` })),
    pendingRestart: spec.pendingRestart,
    message: pod.message,
    createdAt: pod.createdAt,
    startedAt: pod.status === 'RUNNING' ? pod.lastStartedAt : null,
    lastStatusChange: pod.lastStatusChange,
  };
}

async function runtimeView(podId: string, run: PodRun, engine: PodEngine, now: number): Promise<NonNullable<PodView['runtime']>> {
  const usage = await engine.usage(podId);
  return {
    uptime: Math.max(0, Math.floor((now - run.startedAt) / 1000)),
    ...(usage ? { cpu: { util: usage.cpuPercent }, memory: { util: usage.memoryPercent } } : {}),
    ...(usage?.gpus ? { gpus: usage.gpus } : {}),
    ports: run.ports,
  };
}

function sshDirect(run: PodRun | undefined, host: string): PodView['ssh']['direct'] {
  const published = run?.ports.find((p) => p.private === 22 && p.type === 'tcp' && p.public !== null);
  if (!published) return null;
  const port = published.public!;
  return { host, port, username: 'root', command: `ssh root@${host} -p ${port}` };
}
