// The worker-sample part of the Store port: each endpoint's workers by state, sampled by the
// leader every --worker-sample-interval-ms, read back as a history by the series route and
// pruned after WORKER_SAMPLE_RETENTION_MS. A sample of the same endpoint and moment is written
// once, so a former leader still sampling cannot double a point.

/** How long samples are kept: the longest window the series route serves. */
export const WORKER_SAMPLE_RETENTION_MS = 24 * 3_600_000;

export interface WorkerStateCounts {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export interface WorkerSample extends WorkerStateCounts {
  endpointId: string;
  /** When it was taken, epoch ms. */
  at: number;
}

export interface WorkerSampleStore {
  /** Records the samples; one of an endpoint and moment already recorded is skipped. Answers how many were recorded. */
  append(samples: readonly WorkerSample[]): Promise<number>;
  /** The endpoint's samples taken in [fromMs, toMs], oldest first. */
  list(endpointId: string, fromMs: number, toMs: number): Promise<WorkerSample[]>;
  /** Deletes every sample taken before `beforeMs`; answers how many. */
  prune(beforeMs: number): Promise<number>;
}

export interface WorkerSampleRow {
  endpoint_id: string;
  at_ms: number | string;
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export const WORKER_SAMPLE_COLUMNS = 'endpoint_id, at_ms, running, idle, initializing, throttled, unhealthy';

export function workerSampleValues(s: WorkerSample): unknown[] {
  return [s.endpointId, s.at, s.running, s.idle, s.initializing, s.throttled, s.unhealthy];
}

export function workerSampleFromRow(row: WorkerSampleRow): WorkerSample {
  return {
    endpointId: row.endpoint_id,
    at: Number(row.at_ms),
    running: Number(row.running),
    idle: Number(row.idle),
    initializing: Number(row.initializing),
    throttled: Number(row.throttled),
    unhealthy: Number(row.unhealthy),
  };
}
