// What the worker runtime is built from: the store it reads endpoints from, the provider that
// runs workers, the capacity it places them on, and the kinds of worker it runs.
import type { GantryConfig } from '../config.js';
import type { Store } from '../store/store.js';
import type { CapacityPool } from '../catalog/capacity-pool.js';
import type { Scheduler } from '../domain/periodic-task.js';
import type { Logger } from '../domain/logger.js';
import type { Provider } from './provider.js';
import type { WorkerKinds } from './kinds/worker-kind.js';
import type { VolumeMounts } from './volumes/volume-mounts.js';

export type RuntimeSettings = Pick<GantryConfig, 'scaleIntervalMs' | 'crashBackoffMs' | 'workerStopGraceMs'>;

export interface WorkerRuntimeDeps {
  store: Store;
  provider: Provider;
  capacity: CapacityPool;
  /** What differs between queue and HTTP workers. */
  kinds: WorkerKinds;
  /** The network volumes workers mount; without it endpoints' volumes are not mounted. */
  volumes?: VolumeMounts;
  config: RuntimeSettings;
  log: Logger;
  clock?: () => number;
  /** The loop's timers; tests pass a manual one. */
  scheduler?: Scheduler;
}
