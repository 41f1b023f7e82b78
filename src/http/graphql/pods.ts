// The legacy pod operations (runpod.api's create_pod, get_pods, get_pod, stop_pod, resume_pod,
// terminate_pod) over PodService, the service REST v2 /v2/pods uses. Inputs become REST bodies
// checked by the same schemas.
import type { PodRecord } from '../../store/pod-store.js';
import type { Catalog } from '../../domain/catalog.js';
import { cpuMemoryGb } from '../../domain/compute-rules.js';
import { CreatePodBody } from '../schemas/pods.js';
import { ApiError } from '../problem.js';
import type { GraphQLContext } from './context.js';
import { given, onlyGiven } from './given.js';
import { commaList, envFieldNames, envRecord, restBody, withGraphQLFieldNames, type FieldNames } from './rest-body.js';

interface PodInput {
  name: string;
  imageName?: string | null;
  cloudType?: 'ALL' | 'SECURE' | 'COMMUNITY' | null;
  dataCenterId?: string | null;
  startSsh?: boolean | null;
  gpuTypeId?: string | null;
  gpuCount?: number | null;
  volumeInGb?: number | null;
  allowedCudaVersions?: string[] | null;
  dockerArgs?: string | null;
  containerDiskInGb?: number | null;
  ports?: string | null;
  volumeMountPath?: string | null;
  env?: { key: string; value: string }[] | null;
  templateId?: string | null;
  networkVolumeId?: string | null;
  instanceId?: string | null;
}

const FIELD_NAMES: FieldNames = [
  ['mounts.persistent.size', 'volumeInGb'],
  ['mounts.persistent.path', 'volumeMountPath'],
  ['mounts.network', 'networkVolumeId'],
  ['image', 'imageName'],
  ['args', 'dockerArgs'],
  ['disk', 'containerDiskInGb'],
  ['gpu.id', 'gpuTypeId'],
  ['gpu.count', 'gpuCount'],
  ['gpu.allowedCudaVersions', 'allowedCudaVersions'],
  ['cpu', 'instanceId'],
  ['dataCenterIds', 'dataCenterId'],
  ['cloud', 'cloudType'],
];

/** The SDK's volume path when it sends none. */
const DEFAULT_VOLUME_PATH = '/runpod-volume';

/** `cpu3c-2-4` (flavor, vCPUs, memory): the flavor and vCPU count; memory follows from the flavor. */
/** A CPU pod's flavor and vCPUs from its instance id; the memory it names must be the one the flavor gives. */
function cpuOf(instanceId: string, catalog: Catalog): { id: string; vcpuCount: number } {
  const match = /^(.+)-(\d+)-(\d+)$/.exec(instanceId);
  if (!match) throw new ApiError(422, 'the input failed validation', [`instanceId: '${instanceId}' must be <flavor>-<vCPUs>-<memory GB>`]);
  const [id, vcpuCount, memory] = [match[1]!, Number(match[2]), Number(match[3])];
  const flavor = catalog.cpuFlavor(id);
  // An unknown flavor or a bad vCPU count is the REST body's check, under the same field name.
  const expected = flavor && cpuMemoryGb(flavor, vcpuCount);
  if (expected !== undefined && expected !== memory) {
    throw new ApiError(422, 'the input failed validation', [
      `instanceId: ${vcpuCount} vCPUs of ${id} come with ${expected} GB of memory, not ${memory}; use ${id}-${vcpuCount}-${expected}`,
    ]);
  }
  return { id, vcpuCount };
}

/** The template the SDK names on every CPU create that names none, whatever the image. */
const SDK_CPU_TEMPLATE = 'runpod-ubuntu';

/**
 * The template to create from (REST: templateId): the input's, its settings under the input's own
 * (imageName included). The SDK's default CPU template, where the caller has no such template,
 * means nothing when an image is sent, so SDK CPU creates work without one.
 */
async function templateOf(input: PodInput, context: GraphQLContext): Promise<string | undefined> {
  const templateId = given(input.templateId) && input.templateId !== '' ? input.templateId : undefined;
  if (templateId !== SDK_CPU_TEMPLATE || !given(input.imageName)) return templateId;
  return (await context.services.templates.visible(context.accountId, templateId)) ? templateId : undefined;
}

function createBody(input: PodInput, kind: 'gpu' | 'cpu', templateId: string | undefined, catalog: Catalog): unknown {
  if (!given(input.imageName) && templateId === undefined)
    throw new ApiError(422, 'the input failed validation', ['imageName: is required unless templateId is set']);
  const volume = input.volumeInGb ?? 0;
  const mountPath = input.volumeMountPath ?? DEFAULT_VOLUME_PATH;
  return onlyGiven({
    name: input.name,
    image: input.imageName ?? undefined,
    templateId,
    args: given(input.dockerArgs) && input.dockerArgs !== '' ? input.dockerArgs : undefined,
    disk: input.containerDiskInGb ?? undefined,
    ports: given(input.ports) ? commaList(input.ports.replace(/\s+/g, '')) : undefined,
    env: given(input.env) ? envRecord(input.env) : undefined,
    cloud: input.cloudType === 'COMMUNITY' ? 'COMMUNITY' : input.cloudType === 'SECURE' ? 'SECURE' : undefined,
    dataCenterIds: given(input.dataCenterId) && input.dataCenterId !== '' ? [input.dataCenterId] : undefined,
    startSsh: input.startSsh ?? undefined,
    gpu:
      kind === 'gpu'
        ? onlyGiven({
            id: input.gpuTypeId,
            count: input.gpuCount ?? undefined,
            allowedCudaVersions: input.allowedCudaVersions ?? undefined,
          })
        : undefined,
    cpu: kind === 'cpu' ? cpuOf(input.instanceId ?? '', catalog) : undefined,
    mounts:
      volume !== 0 || (given(input.networkVolumeId) && input.networkVolumeId !== '')
        ? onlyGiven({
            // 0 is no volume; any other size, a negative one too, goes to the schema's check.
            persistent: volume !== 0 ? { size: volume, path: mountPath } : undefined,
            network:
              given(input.networkVolumeId) && input.networkVolumeId !== ''
                ? [{ volumeId: input.networkVolumeId, path: mountPath }]
                : undefined,
          })
        : undefined,
  });
}

/** A pod under the legacy names. */
export function podNode(pod: PodRecord, context: GraphQLContext) {
  const { spec } = pod;
  const engine = context.services.pods.engine();
  const run = pod.status === 'RUNNING' ? engine.running(pod.id) : undefined;
  return {
    id: pod.id,
    name: spec.name,
    imageName: spec.image,
    env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    containerDiskInGb: spec.disk,
    volumeInGb: spec.persistent?.size ?? 0,
    volumeMountPath: spec.persistent?.path ?? spec.network?.path ?? null,
    // The hosted field's meaning: the price of an hour of running the pod, also while it is stopped.
    costPerHr: context.services.pods.costPerHour(pod).running,
    desiredStatus: pod.placement ? 'RUNNING' : 'EXITED',
    dockerArgs: spec.args,
    dockerId: null,
    gpuCount: spec.gpu?.count ?? 0,
    lastStatusChange: `${pod.status} at ${pod.lastStatusChange}${pod.message ? `: ${pod.message}` : ''}`,
    machineId: pod.placement ? pod.placement.dataCenterId : null,
    memoryInGb: spec.cpu?.memory ?? null,
    podType: 'RESERVED',
    port: null,
    ports: spec.ports.join(','),
    uptimeSeconds: run ? Math.floor((context.services.cluster.now() - run.startedAt) / 1000) : 0,
    vcpuCount: spec.cpu?.vcpuCount ?? null,
    runtime: run
      ? {
          ports: run.ports.map((p) => ({
            ip: p.ip,
            isIpPublic: p.ip !== '127.0.0.1',
            privatePort: p.private,
            publicPort: p.public,
            type: p.type,
          })),
        }
      : null,
    machine: {
      gpuDisplayName: spec.gpu ? (context.services.catalog.gpuType(spec.gpu.typeId)?.name ?? spec.gpu.typeId) : null,
      podHostId: pod.placement ? `${pod.id}-${pod.placement.dataCenterId}` : null,
    },
  };
}

const create =
  (kind: 'gpu' | 'cpu') =>
  ({ input }: { input: PodInput }, context: GraphQLContext) =>
    withGraphQLFieldNames([...FIELD_NAMES, ...envFieldNames(input.env)], async () => {
      const body = restBody(CreatePodBody, createBody(input, kind, await templateOf(input, context), context.services.catalog));
      return podNode(await context.services.pods.create(context.accountId, body), context);
    });

export const podQueries = {
  pod: async ({ input }: { input: { podId: string } }, context: GraphQLContext) =>
    podNode(await context.services.pods.get(context.accountId, input.podId), context),
};

export const podMutations = {
  podFindAndDeployOnDemand: create('gpu'),
  deployCpuPod: create('cpu'),
  podStop: async ({ input }: { input: { podId: string } }, context: GraphQLContext) =>
    podNode(await context.services.pods.act(context.accountId, input.podId, 'stop'), context),
  /** gpuCount is the SDK's; a pod resumes with the GPUs it was created with. */
  podResume: async ({ input }: { input: { podId: string; gpuCount?: number | null } }, context: GraphQLContext) =>
    podNode(await context.services.pods.act(context.accountId, input.podId, 'start'), context),
  podTerminate: async ({ input }: { input: { podId: string } }, context: GraphQLContext) => {
    await context.services.pods.act(context.accountId, input.podId, 'terminate');
    return null;
  },
};
