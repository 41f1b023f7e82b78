// Schemas of the serverless endpoint resource: create and update bodies, and the response.
import { Type, type Static } from '@sinclair/typebox';
import {
  containerRequestProperties,
  containerResponseProperties,
  CudaVersion,
  GpuCount,
  optionalAll,
  StringEnum,
  VcpuCount,
} from './common.js';

const EndpointType = StringEnum(['QUEUE', 'LOAD_BALANCER'], {
  description: 'QUEUE: jobs through the managed queue; LOAD_BALANCER: requests straight to worker HTTP paths',
});
const FlashBoot = StringEnum(['OFF', 'FLASHBOOT', 'PRIORITY_FLASHBOOT']);

export const QueueDelayScaling = Type.Object(
  { type: Type.Literal('QUEUE_DELAY'), queueDelay: Type.Number({ minimum: 0.5, maximum: 3600, description: 'seconds' }) },
  { additionalProperties: false, description: 'Scale on queue wait time (queue endpoints only)' },
);
export const RequestCountScaling = Type.Object(
  { type: Type.Literal('REQUEST_COUNT'), requestCount: Type.Integer({ minimum: 1, maximum: 10_000 }) },
  { additionalProperties: false, description: 'Scale on in-flight requests per worker' },
);
// A discriminated oneOf, so Ajv checks only the branch `type` names and reports that branch's failures.
// `type: 'object'` is needed as well: on its own, Ajv's discriminator lets any non-object through.
const Scaling = Type.Unsafe<Static<typeof QueueDelayScaling> | Static<typeof RequestCountScaling>>({
  type: 'object',
  oneOf: [QueueDelayScaling, RequestCountScaling],
  discriminator: { propertyName: 'type' },
});

const WorkersRequest = Type.Object(
  {
    min: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    max: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    idleTimeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'seconds' })),
  },
  { additionalProperties: false },
);

const ExcludedType = Type.String({
  pattern: '^\\s*[^-\\s]',
  'x-pattern-message': 'must be a GPU type id, without a leading -',
  description: 'GPU type id; surrounding whitespace trimmed',
});

const gpuRequestProperties = {
  pools: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Serverless GPU pool ids' }),
  excludedTypes: Type.Array(ExcludedType, { uniqueItems: true }),
  count: GpuCount,
  allowedCudaVersions: Type.Array(CudaVersion, { uniqueItems: true }),
};

export const CreateGpu = Type.Object(
  {
    ...gpuRequestProperties,
    excludedTypes: Type.Optional(gpuRequestProperties.excludedTypes),
    count: Type.Optional(gpuRequestProperties.count),
    allowedCudaVersions: Type.Optional(gpuRequestProperties.allowedCudaVersions),
    minCudaVersion: Type.Optional(CudaVersion),
  },
  { additionalProperties: false },
);

export const UpdateGpu = Type.Object(
  {
    ...optionalAll(gpuRequestProperties),
    minCudaVersion: Type.Optional(
      Type.String({
        pattern: '^$|^\\d+\\.\\d+$',
        'x-pattern-message': 'must be a CUDA version major.minor, or "" to clear it',
        description: '"" clears the floor',
      }),
    ),
  },
  { additionalProperties: false, dependencies: { excludedTypes: ['pools'] } },
);

const CpuRequest = Type.Object({ id: Type.String({ minLength: 1 }), vcpuCount: VcpuCount }, { additionalProperties: false });
const CpuList = Type.Array(CpuRequest, { minItems: 1, uniqueItems: true });

const placementProperties = {
  dataCenterIds: Type.Array(Type.String({ minLength: 1 })),
  networkVolumes: Type.Array(Type.String({ minLength: 1 })),
  flashboot: FlashBoot,
  timeout: Type.Integer({
    minimum: 1,
    maximum: 86_400_000,
    description: 'Per-job execution timeout, ms (any positive count: the contract sets no minimum)',
  }),
  workers: WorkersRequest,
  scaling: Scaling,
};

export const CreateEndpointBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 191 }),
    type: EndpointType,
    templateId: Type.Optional(Type.String({ minLength: 1 })),
    gpu: Type.Optional(CreateGpu),
    cpu: Type.Optional(CpuList),
    ...optionalAll(containerRequestProperties),
    ...optionalAll(placementProperties),
    scaling: Scaling,
  },
  { additionalProperties: false, $id: 'CreateEndpointRequest' },
);

export const UpdateEndpointBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 191 })),
    templateId: Type.Optional(Type.String({ minLength: 1 })),
    gpu: Type.Optional(UpdateGpu),
    cpu: Type.Optional(CpuList),
    ...optionalAll(containerRequestProperties),
    ...optionalAll(placementProperties),
  },
  { additionalProperties: false, $id: 'UpdateEndpointRequest' },
);

const QueueRequestUrls = Type.Object({
  run: Type.String({ format: 'uri' }),
  runSync: Type.String({ format: 'uri' }),
  status: Type.String(),
  stream: Type.String(),
  cancel: Type.String(),
  retry: Type.String(),
  purgeQueue: Type.String({ format: 'uri' }),
  health: Type.String({ format: 'uri' }),
});
const LoadBalancerRequestUrls = Type.Object({ base: Type.String({ format: 'uri' }), health: Type.String({ format: 'uri' }) });

export const EndpointResponse = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: EndpointType,
    version: Type.Integer({ description: 'Configuration version; grows when what workers run changes' }),
    requestUrls: Type.Union([QueueRequestUrls, LoadBalancerRequestUrls]),
    ...containerResponseProperties,
    gpu: Type.Union([
      Type.Object({
        pools: Type.Array(Type.String()),
        excludedTypes: Type.Array(Type.String()),
        count: Type.Integer(),
        allowedCudaVersions: Type.Array(Type.String()),
        minCudaVersion: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    cpu: Type.Optional(Type.Array(Type.Object({ id: Type.String(), vcpuCount: Type.Integer(), memory: Type.Integer() }))),
    workers: Type.Object({ min: Type.Integer(), max: Type.Integer(), idleTimeout: Type.Optional(Type.Integer()) }),
    scaling: Type.Union([QueueDelayScaling, RequestCountScaling]),
    dataCenterIds: Type.Array(Type.String()),
    networkVolumes: Type.Array(Type.String()),
    timeout: Type.Integer(),
    flashboot: FlashBoot,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Endpoint' },
);

export const EndpointIdParams = Type.Object({ id: Type.String() });
