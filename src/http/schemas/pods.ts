// Schemas of the pod resource: create, update and action bodies, and the pod as responses carry it.
import { Type } from '@sinclair/typebox';
import { containerRequestProperties, CudaVersion, GpuCount, optionalAll, PersistentMount, StringEnum, VcpuCount } from './common.js';
import { POD_ACTIONS, POD_STATUSES } from '../../domain/pod.js';

const NetworkMount = Type.Object(
  { volumeId: Type.String({ minLength: 1 }), path: Type.String({ minLength: 1, description: 'Mount path inside the container' }) },
  { additionalProperties: false },
);
const Mounts = Type.Object(
  { persistent: Type.Optional(PersistentMount), network: Type.Optional(Type.Array(NetworkMount, { maxItems: 1 })) },
  { additionalProperties: false },
);

export const CreatePodBody = Type.Object(
  {
    ...optionalAll(containerRequestProperties),
    name: Type.String({ minLength: 1 }),
    cloud: Type.Optional(StringEnum(['SECURE', 'COMMUNITY'], { default: 'SECURE' })),
    gpu: Type.Optional(
      Type.Object(
        {
          id: Type.String({ minLength: 1, description: 'A catalog GPU type id' }),
          count: Type.Optional({ ...GpuCount, default: 1 }),
          allowedCudaVersions: Type.Optional(Type.Array(CudaVersion)),
          minCudaVersion: Type.Optional(CudaVersion),
        },
        { additionalProperties: false },
      ),
    ),
    cpu: Type.Optional(Type.Object({ id: Type.String({ minLength: 1 }), vcpuCount: VcpuCount }, { additionalProperties: false })),
    dataCenterIds: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    globalNetworking: Type.Optional(Type.Boolean({ description: 'Not offered: true answers 400' })),
    mounts: Type.Optional(Mounts),
    startJupyter: Type.Optional(Type.Boolean()),
    startSsh: Type.Optional(Type.Boolean({ description: "The account's SSH keys reach the container as PUBLIC_KEY" })),
    templateId: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A pod template (own, public, or the catalog's) whose container settings, volume, startSsh, startJupyter and CUDA versions the pod takes; the body's fields win, env merges per key",
      }),
    ),
  },
  { additionalProperties: false, $id: 'CreatePodRequest' },
);

export const UpdatePodBody = Type.Object(
  {
    ...optionalAll(containerRequestProperties),
    name: Type.Optional(Type.String({ minLength: 1 })),
    locked: Type.Optional(Type.Boolean({ description: 'A locked pod cannot be stopped, restarted or terminated' })),
    globalNetworking: Type.Optional(Type.Boolean()),
    mounts: Type.Optional(Mounts),
    templateId: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A pod template whose container settings apply as if sent (not its mounts); the body's fields win, env merges per key and replaces the pod's",
      }),
    ),
  },
  { additionalProperties: false, $id: 'UpdatePodRequest' },
);

export const PodActionBody = Type.Object({ action: StringEnum(POD_ACTIONS) }, { additionalProperties: false });

const Port = Type.Object({
  private: Type.Integer(),
  public: Type.Union([Type.Integer(), Type.Null()]),
  type: Type.String(),
  ip: Type.Union([Type.String(), Type.Null()]),
});
const SshEndpoint = Type.Object({ host: Type.String(), port: Type.Integer(), username: Type.String(), command: Type.String() });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const PodResponse = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: StringEnum(POD_STATUSES),
    desiredStatus: StringEnum(['RUNNING', 'EXITED', 'TERMINATED'], { description: 'The legacy API’s view of status' }),
    actions: Type.Array(StringEnum(POD_ACTIONS)),
    image: Type.String(),
    args: Type.String(),
    entrypoint: Type.Array(Type.String()),
    cmd: Type.Array(Type.String()),
    disk: Type.Integer(),
    ports: Type.Array(Type.String()),
    env: Type.Record(Type.String(), Type.String()),
    registry: Nullable(Type.String()),
    mounts: Type.Object({
      persistent: Type.Optional(Type.Object({ size: Type.Integer(), path: Type.String() })),
      network: Type.Optional(Type.Array(Type.Object({ volumeId: Type.String(), path: Type.String() }))),
    }),
    gpu: Type.Optional(Type.Object({ id: Type.String(), count: Type.Integer() })),
    cpu: Type.Optional(Type.Object({ id: Type.String(), vcpuCount: Type.Integer(), memory: Type.Integer() })),
    cloud: StringEnum(['SECURE', 'COMMUNITY']),
    dataCenterId: Nullable(Type.String()),
    cudaVersion: Nullable(Type.String()),
    ssh: Type.Object({ proxy: Nullable(SshEndpoint), direct: Nullable(SshEndpoint) }),
    template: Nullable(Type.String()),
    cost: Type.Number({
      description:
        "USD per hour as billed in the pod's state now: GPUs or vCPUs, container disk and volume while it runs; its volume at the stopped price otherwise; 0 once terminated",
    }),
    locked: Type.Boolean(),
    globalNetworking: Type.Object({ enabled: Type.Boolean() }),
    runtime: Nullable(
      Type.Object({
        uptime: Type.Integer(),
        gpus: Type.Optional(Type.Array(Type.Object({ util: Type.Integer(), memoryUtil: Type.Integer() }))),
        cpu: Type.Optional(Type.Object({ util: Type.Integer() })),
        memory: Type.Optional(Type.Object({ util: Type.Integer() })),
        ports: Type.Array(Port),
      }),
    ),
    http: Type.Array(Type.Object({ port: Type.Integer(), url: Type.String() }), {
      description: "Where each HTTP port is reached through Gantry, with an API key of the pod's account",
    }),
    pendingRestart: Type.Array(Type.String(), { description: 'Changed fields that apply at the next start' }),
    message: Nullable(Type.String({ description: 'Why the pod is in ERROR, or what ended it' })),
    createdAt: Type.String(),
    startedAt: Nullable(Type.String()),
    lastStatusChange: Type.String(),
  },
  { $id: 'Pod' },
);

export const ListPodsResponse = Type.Object({ pods: Type.Array(PodResponse) });
export const PodIdParams = Type.Object({ id: Type.String() });
export const ListPodsQuery = Type.Object({
  includeClusterPods: Type.Optional(Type.Boolean({ description: 'Clusters are not offered, so it changes nothing' })),
});
