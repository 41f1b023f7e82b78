// Shapes of the API answers the console reads.
export interface Endpoint {
  id: string;
  name: string;
  type: 'QUEUE' | 'LOAD_BALANCER';
  version: number;
  requestUrls: Record<string, string>;
  image: string;
  args: string;
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  disk: number;
  ports: string[];
  registry: string | null;
  templateId?: string | null;
  gpu: { pools: string[]; count: number; excludedTypes: string[]; allowedCudaVersions: string[]; minCudaVersion: string | null } | null;
  cpu?: { id: string; vcpuCount: number; memory: number }[];
  workers: { min: number; max: number; idleTimeout?: number };
  scaling: { type: 'QUEUE_DELAY'; queueDelay: number } | { type: 'REQUEST_COUNT'; requestCount: number };
  dataCenterIds: string[];
  networkVolumes: string[];
  timeout: number;
  flashboot: 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT';
  createdAt: string;
}

export interface Health {
  jobs: { completed: number; failed: number; inProgress: number; inQueue: number; retried: number };
  workers: { idle: number; initializing: number; ready: number; running: number; throttled: number; unhealthy: number };
}

export interface Worker {
  id: string;
  status: string;
  isStale: boolean;
  version: number | null;
  gpuTypeId: string | null;
  gpuCount: number;
  dataCenterId: string | null;
  uptimeSeconds: number | null;
  startedAt: string | null;
  managed: boolean;
  statusMessage?: string;
}

export interface CrashLoop {
  consecutive: number;
  lastReason: string;
  lastAt: string;
  lastLogLines: string[];
  nextStartAt: string;
}

export interface WorkersAnswer {
  workers: Worker[];
  summary: Record<'running' | 'idle' | 'initializing' | 'throttled' | 'unhealthy' | 'total', number>;
  endpointVersion: number;
  crashLoop?: CrashLoop;
  throttled?: unknown;
}

export interface JobSummary {
  id: string;
  status: string;
  submittedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  delayTime: number | null;
  executionTime: number | null;
  workerId: string | null;
  retries: number;
}

export interface JobDetail extends JobSummary {
  input: unknown;
  output?: unknown;
  error: string | null;
  stream: unknown[];
}

export interface SeriesPoint {
  t: number;
  queued: number;
  inProgress: number;
  submitted: number;
  completed: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  delayP50: number | null;
  delayP90: number | null;
  delayP99: number | null;
  executionP50: number | null;
  executionP90: number | null;
  executionP99: number | null;
  workers: WorkerStates;
}

export interface WorkerStates {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export interface Series {
  points: SeriesPoint[];
  stepSeconds: number;
  workers: WorkerStates;
}
