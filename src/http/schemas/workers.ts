// Schemas of an endpoint's workers, releases and logs.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const WorkerStatus = StringEnum(['RUNNING', 'IDLE', 'INITIALIZING', 'THROTTLED', 'UNHEALTHY']);

export const WorkerView = Type.Object({
  id: Type.String(),
  status: WorkerStatus,
  isStale: Type.Boolean({ description: 'Runs an older configuration version than the endpoint' }),
  version: Type.Union([Type.Integer(), Type.Null()]),
  gpuCount: Type.Integer(),
  image: Type.Union([Type.String(), Type.Null()]),
  uptimeSeconds: Type.Union([Type.Integer(), Type.Null()]),
  gpuTypeId: Type.Union([Type.String(), Type.Null()]),
  dataCenterId: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  managed: Type.Boolean({ description: 'Started by Gantry (false: a worker started by hand)' }),
  statusMessage: Type.Optional(
    Type.String({ description: 'While the worker starts (INITIALIZING): what its provider is doing, such as "pulling image x: 40%"' }),
  ),
});

export const WorkerSummary = Type.Object({
  running: Type.Integer(),
  idle: Type.Integer(),
  initializing: Type.Integer(),
  throttled: Type.Integer(),
  unhealthy: Type.Integer(),
  total: Type.Integer(),
});

export const CrashLoop = Type.Object({
  consecutive: Type.Integer({ description: 'Unexpected exits in a row' }),
  lastReason: Type.String(),
  lastAt: Type.String({ format: 'date-time' }),
  lastLogLines: Type.Array(Type.String()),
  nextStartAt: Type.String({ format: 'date-time', description: 'No new worker starts before this' }),
});

export const Throttled = Type.Object(
  {
    reason: Type.String({ description: 'Why no worker can be placed, e.g. no GPU of the pool on this deployment' }),
    since: Type.String({ format: 'date-time' }),
  },
  { description: "Present while the endpoint's next worker waits for capacity" },
);

export const ListWorkersResponse = Type.Object({
  workers: Type.Array(WorkerView),
  summary: WorkerSummary,
  endpointVersion: Type.Union([Type.Integer(), Type.Null()]),
  crashLoop: Type.Optional(CrashLoop),
  throttled: Type.Optional(Throttled),
});

export const Release = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  source: StringEnum(['MANUAL', 'GIT_BUILD']),
  buildId: Type.Null(),
  createdByUserId: Type.Union([Type.String(), Type.Null()]),
  workerCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  diff: Type.Array(Type.Object({ field: Type.String(), old: Type.Unknown(), new: Type.Unknown() })),
});

export const ListReleasesResponse = Type.Object({
  endpointVersion: Type.Integer(),
  rollout: Type.Object({
    inProgress: Type.Boolean(),
    workersOnLatest: Type.Integer(),
    workersTotal: Type.Integer(),
    percentOnLatest: Type.Integer(),
  }),
  releases: Type.Array(Release),
});

export const LogQuery = Type.Object({
  source: Type.Optional(StringEnum(['container', 'system'])),
  tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
  since: Type.Optional(
    Type.String({ description: 'RFC 3339 time to resume from; `tail` is then ignored, and Last-Event-ID wins over it' }),
  ),
  follow: Type.Optional(Type.Boolean({ description: 'keep the stream open for new lines (default true)' })),
});
