// saveEndpoint's input as REST v2 endpoint bodies: gpuIds "ADA_24,-NVIDIA L4" -> gpu.pools and
// gpu.excludedTypes, workersMin/Max/idleTimeout -> workers, scalerType + scalerValue -> scaling,
// locations -> dataCenterIds, networkVolumeId -> networkVolumes, flashBootType -> flashboot,
// executionTimeoutMs -> timeout, [{key, value}] -> env. GraphQL makes queue endpoints only.
import type { EndpointSpec, Scaling } from '../../../domain/endpoint-spec.js';
import { ApiError } from '../../problem.js';
import type { EnvironmentVariable } from '../context.js';
import { given, onlyGiven } from '../given.js';
import { commaList, envFieldNames, envRecord, type FieldNames } from '../rest-body.js';

export interface EndpointInput {
  id?: string | null;
  name?: string | null;
  templateId?: string | null;
  gpuIds?: string | null;
  gpuCount?: number | null;
  allowedCudaVersions?: string | null;
  networkVolumeId?: string | null;
  locations?: string | null;
  idleTimeout?: number | null;
  scalerType?: string | null;
  scalerValue?: number | null;
  workersMin?: number | null;
  workersMax?: number | null;
  flashBootType?: string | null;
  executionTimeoutMs?: number | null;
  env?: EnvironmentVariable[] | null;
}

/** The SDK's create_endpoint defaults, used when a create leaves the scaler out. */
const DEFAULT_SCALER = { type: 'QUEUE_DELAY', value: 4 } as const;

const FIELD_NAMES: FieldNames = [
  ['gpu.excludedTypes', 'gpuIds', 'list'],
  ['gpu.pools', 'gpuIds', 'list'],
  ['gpu.count', 'gpuCount'],
  ['gpu.allowedCudaVersions', 'allowedCudaVersions'],
  ['workers.min', 'workersMin'],
  ['workers.max', 'workersMax'],
  ['workers.idleTimeout', 'idleTimeout'],
  ['scaling.type', 'scalerType'],
  ['scaling.queueDelay', 'scalerValue'],
  ['scaling.requestCount', 'scalerValue'],
  ['scaling', 'scalerType'],
  ['dataCenterIds', 'locations', 'list'],
  ['networkVolumes[0]', 'networkVolumeId'],
  ['networkVolumes', 'networkVolumeId'],
  ['timeout', 'executionTimeoutMs'],
  ['flashboot', 'flashBootType'],
];

/**
 * REST names under GraphQL's. A failure of the whole `gpu` (a CPU endpoint takes none) is named
 * after the field that made it: gpuIds, or gpuCount when only the count was sent.
 */
export function endpointFieldNames(input: EndpointInput): FieldNames {
  const gpuField = !given(input.gpuIds) && given(input.gpuCount) ? 'gpuCount' : 'gpuIds';
  return [...FIELD_NAMES, ['gpu', gpuField], ...envFieldNames(input.env)];
}

/** "ADA_24,AMPERE_16,-NVIDIA L4": pools, and `-<GPU type id>` entries excluded from them. */
export function gpuSelection(gpuIds: string): { pools: string[]; excludedTypes: string[] } {
  const entries = commaList(gpuIds);
  return {
    pools: entries.filter((entry) => !entry.startsWith('-')),
    excludedTypes: entries.filter((entry) => entry.startsWith('-')).map((entry) => entry.slice(1).trim()),
  };
}

/** An unknown scaler type is passed on, so the REST schema refuses it with its allowed values. */
function scaling(type: string, value: number): Scaling | Record<string, unknown> {
  return type === 'REQUEST_COUNT' ? { type, requestCount: value } : { type, queueDelay: value };
}

function gpuOf(input: EndpointInput): Record<string, unknown> | undefined {
  const gpu = onlyGiven({
    ...(given(input.gpuIds) ? gpuSelection(input.gpuIds) : {}),
    count: input.gpuCount,
    allowedCudaVersions: given(input.allowedCudaVersions) ? commaList(input.allowedCudaVersions) : undefined,
  });
  return Object.keys(gpu).length > 0 ? gpu : undefined;
}

/**
 * The SDK always sends idleTimeout; REST refuses it where it does not apply (a QUEUE endpoint
 * scaling on REQUEST_COUNT, see idleTimeoutApplies), so it is dropped there.
 */
function workersOf(input: EndpointInput, scalerType: string): Record<string, unknown> | undefined {
  const applies = scalerType !== 'REQUEST_COUNT';
  const workers = onlyGiven({ min: input.workersMin, max: input.workersMax, idleTimeout: applies ? input.idleTimeout : undefined });
  return Object.keys(workers).length > 0 ? workers : undefined;
}

function placementOf(input: EndpointInput, creating: boolean): Record<string, unknown> {
  const volume = input.networkVolumeId;
  return onlyGiven({
    dataCenterIds: given(input.locations) ? commaList(input.locations) : undefined,
    // "" is how the SDK says "no volume": nothing to send on create, "detach" on a change.
    networkVolumes: given(volume) ? (volume === '' ? (creating ? undefined : []) : [volume]) : undefined,
    flashboot: input.flashBootType,
    timeout: input.executionTimeoutMs,
    env: given(input.env) ? envRecord(input.env) : undefined,
  });
}

export function endpointCreateBody(input: EndpointInput): Record<string, unknown> {
  if (!given(input.templateId) || input.templateId === '') {
    throw new ApiError(422, 'the input failed validation', [
      'templateId: is required: an endpoint made through GraphQL takes its image and container settings from a serverless template',
    ]);
  }
  const scalerType = input.scalerType ?? DEFAULT_SCALER.type;
  return onlyGiven({
    name: input.name,
    type: 'QUEUE',
    templateId: input.templateId,
    gpu: gpuOf(input),
    scaling: scaling(scalerType, input.scalerValue ?? DEFAULT_SCALER.value),
    workers: workersOf(input, scalerType),
    ...placementOf(input, true),
  });
}

/** A change to `current`: only what the input gives; a scaler value alone keeps the scaler type. */
export function endpointPatchBody(input: EndpointInput, current: EndpointSpec): Record<string, unknown> {
  const scalerType = input.scalerType ?? current.scaling.type;
  const currentValue = current.scaling.type === 'QUEUE_DELAY' ? current.scaling.queueDelay : current.scaling.requestCount;
  const scalerGiven = given(input.scalerType) || given(input.scalerValue);
  return onlyGiven({
    name: input.name,
    templateId: input.templateId === '' ? undefined : input.templateId,
    gpu: gpuOf(input),
    scaling: scalerGiven ? scaling(scalerType, input.scalerValue ?? currentValue) : undefined,
    workers: workersOf(input, current.type === 'QUEUE' ? scalerType : 'QUEUE_DELAY'),
    ...placementOf(input, false),
  });
}
