// The endpoint form's state, how it becomes a request body, and which field a server error is about.
import type { Endpoint } from '../types';

export interface FormState {
  name: string;
  type: 'QUEUE' | 'LOAD_BALANCER';
  templateId: string;
  image: string;
  args: string;
  compute: 'gpu' | 'cpu';
  gpuPools: string[];
  gpuCount: string;
  cpuId: string;
  vcpuCount: string;
  scalingType: 'QUEUE_DELAY' | 'REQUEST_COUNT';
  scalingValue: string;
  workersMin: string;
  workersMax: string;
  idleTimeout: string;
  timeoutSeconds: string;
  flashboot: 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT';
  env: string;
  networkVolumes: string[];
  registry: string;
  dataCenterIds: string[];
  disk: string;
  ports: string;
  excludedTypes: string;
  allowedCudaVersions: string;
  minCudaVersion: string;
}

export const emptyForm = (): FormState => ({
  name: '',
  type: 'QUEUE',
  templateId: '',
  image: '',
  args: '',
  compute: 'cpu',
  gpuPools: [],
  gpuCount: '1',
  cpuId: 'cpu3c',
  vcpuCount: '2',
  scalingType: 'QUEUE_DELAY',
  scalingValue: '4',
  workersMin: '0',
  workersMax: '3',
  idleTimeout: '5',
  timeoutSeconds: '600',
  flashboot: 'OFF',
  env: '',
  networkVolumes: [],
  registry: '',
  dataCenterIds: [],
  disk: '',
  ports: '',
  excludedTypes: '',
  allowedCudaVersions: '',
  minCudaVersion: '',
});

/** The command as the `args` field takes it: entrypoint and cmd as a JSON object string when set apart. */
function argsOf(e: Endpoint): string {
  if (e.args) return e.args;
  if (e.entrypoint.length === 0 && e.cmd.length === 0) return '';
  return JSON.stringify({ ...(e.entrypoint.length ? { entrypoint: e.entrypoint } : {}), ...(e.cmd.length ? { cmd: e.cmd } : {}) });
}

export function formOf(e: Endpoint): FormState {
  return {
    name: e.name,
    type: e.type,
    templateId: e.templateId ?? '',
    image: e.image,
    args: argsOf(e),
    compute: e.gpu ? 'gpu' : 'cpu',
    gpuPools: e.gpu?.pools ?? [],
    gpuCount: String(e.gpu?.count ?? 1),
    cpuId: e.cpu?.[0]?.id ?? 'cpu3c',
    vcpuCount: String(e.cpu?.[0]?.vcpuCount ?? 2),
    scalingType: e.scaling.type,
    scalingValue: String(e.scaling.type === 'QUEUE_DELAY' ? e.scaling.queueDelay : e.scaling.requestCount),
    workersMin: String(e.workers.min),
    workersMax: String(e.workers.max),
    idleTimeout: String(e.workers.idleTimeout ?? ''),
    timeoutSeconds: String(e.timeout / 1000),
    flashboot: e.flashboot,
    env: Object.entries(e.env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    networkVolumes: e.networkVolumes,
    registry: e.registry ?? '',
    dataCenterIds: e.dataCenterIds,
    disk: String(e.disk),
    ports: e.ports.join(', '),
    excludedTypes: (e.gpu?.excludedTypes ?? []).join(', '),
    allowedCudaVersions: (e.gpu?.allowedCudaVersions ?? []).join(', '),
    minCudaVersion: e.gpu?.minCudaVersion ?? '',
  };
}

/** A number as typed: empty is left out, anything else goes to the server to judge. */
const list = (text: string): string[] =>
  text
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
const num = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

function envOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    if (at < 0) env[line.trim()] = '';
    else env[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return env;
}

export function bodyOf(f: FormState, creating: boolean): Record<string, unknown> {
  const workers: Record<string, number | undefined> = { min: num(f.workersMin), max: num(f.workersMax), idleTimeout: num(f.idleTimeout) };
  const seconds = num(f.timeoutSeconds);
  const body: Record<string, unknown> = {
    name: f.name,
    ...(creating ? { type: f.type } : {}),
    ...(f.templateId ? { templateId: f.templateId } : {}),
    ...(f.image.trim() ? { image: f.image.trim() } : {}),
    args: f.args,
    scaling:
      f.scalingType === 'QUEUE_DELAY'
        ? { type: 'QUEUE_DELAY', queueDelay: num(f.scalingValue) }
        : { type: 'REQUEST_COUNT', requestCount: num(f.scalingValue) },
    workers: Object.fromEntries(Object.entries(workers).filter(([, v]) => v !== undefined)),
    ...(seconds === undefined ? {} : { timeout: Math.round(seconds * 1000) }),
    flashboot: f.flashboot,
    env: envOf(f.env),
    networkVolumes: f.networkVolumes,
    registry: f.registry || null,
    dataCenterIds: f.dataCenterIds,
    ports: list(f.ports),
    ...(f.disk.trim() === '' ? {} : { disk: num(f.disk) }),
  };
  if (f.compute === 'gpu') {
    body.gpu = {
      pools: f.gpuPools,
      count: num(f.gpuCount),
      excludedTypes: list(f.excludedTypes),
      allowedCudaVersions: list(f.allowedCudaVersions),
      // An empty floor is left out when creating; when editing, "" clears it.
      ...(f.minCudaVersion.trim() !== '' || !creating ? { minCudaVersion: f.minCudaVersion.trim() } : {}),
    };
  } else body.cpu = [{ id: f.cpuId, vcpuCount: num(f.vcpuCount) }];
  return body;
}

/** Form fields a server error path can be about; the first that prefixes the path wins. */
export const FIELDS = [
  'name',
  'type',
  'templateId',
  'image',
  'args',
  'entrypoint',
  'cmd',
  'gpu.count',
  'gpu.excludedTypes',
  'gpu.allowedCudaVersions',
  'gpu.minCudaVersion',
  'gpu',
  'cpu',
  'scaling',
  'workers.min',
  'workers.max',
  'workers.idleTimeout',
  'workers',
  'timeout',
  'flashboot',
  'env',
  'networkVolumes',
  'dataCenterIds',
  'registry',
  'disk',
  'ports',
] as const;

/** Splits "path: message" lines by form field; lines about no field go under "". */
export function errorsByField(lines: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of lines) {
    const at = line.indexOf(': ');
    const path = at < 0 ? '' : line.slice(0, at);
    const message = at < 0 ? line : line.slice(at + 2);
    const field = FIELDS.find((f) => path === f || path.startsWith(`${f}.`) || path.startsWith(`${f}[`)) ?? '';
    // entrypoint and cmd are set through the command field.
    const shown = field === 'entrypoint' || field === 'cmd' ? 'args' : field;
    (out[shown] ??= []).push(field === '' ? line : `${path === shown ? '' : `${path}: `}${message}`);
  }
  return out;
}

/** What an edit sends: only the top-level fields whose value changed from what was loaded. */
export function changesOf(original: FormState, edited: FormState): Record<string, unknown> {
  const before = bodyOf(original, false);
  const after = bodyOf(edited, false);
  return Object.fromEntries(Object.entries(after).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key])));
}
