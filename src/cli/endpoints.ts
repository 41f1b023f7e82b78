// `gantry endpoints list|get|create|update|delete`: serverless endpoints over /v2/serverless.
import { InvalidArgumentError, type Command } from 'commander';
import { addContainerFlags, applyContainerFlags, type ContainerFlags } from './remote/container-flags.js';
import { commaList, integer, oneOf, setIfGiven } from './remote/flag-values.js';
import {
  collectionCommand,
  createVerb,
  deleteVerb,
  getVerb,
  listVerb,
  updateVerb,
  type BodyFlags,
  type Collection,
} from './remote/resource.js';

interface EndpointRow {
  id: string;
  name: string;
  type: string;
  image: string | null;
  gpu: { pools: string[]; count: number } | null;
  cpu?: { id: string; vcpuCount: number }[];
  workers: { min: number; max: number };
  scaling: { type: string; queueDelay?: number; requestCount?: number };
}

const ENDPOINTS: Collection<EndpointRow> = {
  name: 'endpoints',
  noun: 'endpoint',
  path: '/v2/serverless',
  listKey: 'endpoints',
  columns: [
    { header: 'ID', value: (e) => e.id },
    { header: 'NAME', value: (e) => e.name },
    { header: 'TYPE', value: (e) => e.type },
    { header: 'IMAGE', value: (e) => e.image ?? '-' },
    { header: 'COMPUTE', value: compute },
    { header: 'WORKERS', value: (e) => `${e.workers.min}..${e.workers.max}` },
    { header: 'SCALING', value: (e) => `${e.scaling.type} ${e.scaling.queueDelay ?? e.scaling.requestCount ?? ''}`.trim() },
  ],
};

function compute(e: EndpointRow): string {
  if (e.gpu) return `${e.gpu.count}x ${e.gpu.pools.join('|')}`;
  return (e.cpu ?? []).map((c) => `${c.id}/${c.vcpuCount}vCPU`).join(',') || '-';
}

const TYPES = ['QUEUE', 'LOAD_BALANCER'] as const;
const FLASHBOOT = ['OFF', 'FLASHBOOT', 'PRIORITY_FLASHBOOT'] as const;

interface EndpointFlags extends ContainerFlags {
  name?: string;
  type?: (typeof TYPES)[number];
  template?: string;
  gpu?: string[];
  gpuCount?: number;
  cpu?: { id: string; vcpuCount: number }[];
  minWorkers?: number;
  maxWorkers?: number;
  idleTimeout?: number;
  scaling?: { type: string; queueDelay?: number; requestCount?: number };
  timeout?: number;
  flashboot?: string;
  dataCenters?: string[];
}

/** `--cpu cpu3c:2`: a CPU flavor and its vCPU count; repeat for alternatives. */
function cpuChoice(value: string, previous: EndpointFlags['cpu'] = []): NonNullable<EndpointFlags['cpu']> {
  const match = /^([^:]+):(\d+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('use FLAVOR:VCPUS, e.g. cpu3c:2 (gantry lists flavors at GET /v2/catalog/cpus)');
  return [...previous, { id: match[1]!, vcpuCount: Number(match[2]) }];
}

/** `--scaling queue-delay:4` or `--scaling request-count:2`. */
function scalingChoice(value: string): NonNullable<EndpointFlags['scaling']> {
  const match = /^(queue-delay|request-count):(\d+(?:\.\d+)?)$/i.exec(value);
  if (!match) throw new InvalidArgumentError('use queue-delay:SECONDS or request-count:N, e.g. queue-delay:4');
  const amount = Number(match[2]);
  return match[1]!.toLowerCase() === 'queue-delay'
    ? { type: 'QUEUE_DELAY', queueDelay: amount }
    : { type: 'REQUEST_COUNT', requestCount: amount };
}

/** The flags of create and update; the routing type is chosen once, at create. */
function addEndpointFlags(command: Command, verb: 'create' | 'update'): Command {
  command.option('--name <name>', 'the endpoint name');
  if (verb === 'create') command.option('--type <type>', 'QUEUE or LOAD_BALANCER (default QUEUE)', oneOf(TYPES));
  command.option('--template <id>', "take a template's image, command and env, which the other flags override");
  return addContainerFlags(command)
    .option('--gpu <pools>', 'GPU pools, comma-separated (e.g. ADA_24,AMPERE_48)', commaList)
    .option('--gpu-count <n>', 'GPUs per worker', integer(1))
    .option('--cpu <flavor:vcpus>', 'a CPU flavor and vCPU count, e.g. cpu3c:2; repeat for alternatives', cpuChoice)
    .option('--min-workers <n>', 'workers kept running (workers.min)', integer(0))
    .option('--max-workers <n>', 'most workers at once (workers.max)', integer(0))
    .option('--idle-timeout <seconds>', 'idle seconds before a worker is stopped', integer(1))
    .option(
      '--scaling <policy>',
      'queue-delay:SECONDS or request-count:N (create: default queue-delay:4, request-count:1 for LOAD_BALANCER)',
      scalingChoice,
    )
    .option('--timeout <ms>', 'execution timeout of a job or request, in ms', integer(1))
    .option('--flashboot <mode>', FLASHBOOT.join(', '), oneOf(FLASHBOOT))
    .option('--data-centers <ids>', 'preferred data centers, comma-separated', commaList);
}

function applyEndpointFlags(flags: EndpointFlags, base: Record<string, unknown>): Record<string, unknown> {
  const body = { ...base };
  setIfGiven(body, 'name', flags.name);
  setIfGiven(body, 'type', flags.type);
  setIfGiven(body, 'templateId', flags.template);
  applyContainerFlags(flags, body);
  if (flags.gpu || flags.gpuCount !== undefined) {
    const gpu = { ...(body.gpu as Record<string, unknown> | undefined) };
    setIfGiven(gpu, 'pools', flags.gpu);
    setIfGiven(gpu, 'count', flags.gpuCount);
    body.gpu = gpu;
  }
  setIfGiven(body, 'cpu', flags.cpu);
  if (flags.minWorkers !== undefined || flags.maxWorkers !== undefined || flags.idleTimeout !== undefined) {
    const workers = { ...(body.workers as Record<string, unknown> | undefined) };
    setIfGiven(workers, 'min', flags.minWorkers);
    setIfGiven(workers, 'max', flags.maxWorkers);
    setIfGiven(workers, 'idleTimeout', flags.idleTimeout);
    body.workers = workers;
  }
  setIfGiven(body, 'scaling', flags.scaling);
  setIfGiven(body, 'timeout', flags.timeout);
  setIfGiven(body, 'flashboot', flags.flashboot);
  setIfGiven(body, 'dataCenterIds', flags.dataCenters);
  return body;
}

const CREATE: BodyFlags<EndpointFlags> = {
  add: (command) => addEndpointFlags(command, 'create'),
  build(flags, base) {
    const body = applyEndpointFlags(flags, base);
    // The API wants both chosen explicitly; on the command line the usual choice is the default.
    body.type ??= 'QUEUE';
    body.scaling ??= body.type === 'LOAD_BALANCER' ? { type: 'REQUEST_COUNT', requestCount: 1 } : { type: 'QUEUE_DELAY', queueDelay: 4 };
    return body;
  },
};

const UPDATE: BodyFlags<EndpointFlags> = { add: (command) => addEndpointFlags(command, 'update'), build: applyEndpointFlags };

export function endpointsCommand(): Command {
  return collectionCommand('endpoints', 'list, show, create, change and delete serverless endpoints', [
    listVerb(ENDPOINTS),
    getVerb(ENDPOINTS),
    createVerb(ENDPOINTS, CREATE),
    updateVerb(ENDPOINTS, UPDATE),
    deleteVerb(ENDPOINTS),
  ]);
}
