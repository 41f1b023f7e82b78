// A real PodService on a virtual clock, for tests of what the pod service, the meter and billing
// make of a pod's timeline: its containers "run" in a MemoryPodEngine, its GPUs and vCPUs come
// from a small capacity pool (one L4; 8 vCPUs of cpu3c), and its price table is the catalog's.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Catalog } from '../../src/domain/catalog.js';
import { CapacityPool } from '../../src/catalog/capacity-pool.js';
import { PriceTable } from '../../src/domain/price-table.js';
import { silentLogger } from '../../src/domain/logger.js';
import { PodService } from '../../src/services/pods.js';
import { PodLauncher } from '../../src/services/pod-launcher.js';
import { VolumeDirectories } from '../../src/runtime/volumes/volume-directories.js';
import type { PodRecord } from '../../src/store/pod-store.js';
import type { Store } from '../../src/store/store.js';
import { MemoryPodEngine } from './memory-pod-engine.js';

export interface MemoryPods {
  pods: PodService;
  engine: MemoryPodEngine;
}

export function memoryPodService(options: {
  store: Store;
  catalog: Catalog;
  dataDir: string;
  now: () => number;
  settle: (pod: PodRecord, at: number) => Promise<void>;
}): MemoryPods {
  const { store, catalog, dataDir, now, settle } = options;
  const engine = new MemoryPodEngine(now);
  const pods = new PodService({
    store,
    catalog,
    capacity: new CapacityPool(
      [{ deviceId: '0', type: 'NVIDIA L4', cudaVersion: '12.4', dataCenterId: 'LOCAL' }],
      [{ vcpus: 8, dataCenterId: 'LOCAL', flavors: ['cpu3c'] }],
      catalog,
    ),
    engine,
    providerName: 'docker',
    launcher: new PodLauncher(
      join(dataDir, 'pods'),
      new VolumeDirectories(join(dataDir, 'volumes')),
      { resolve: async (_account, env) => ({ ...env }) },
      { list: async () => [] },
      { loginOf: async () => undefined as never },
    ),
    registries: { ensureUsable: async () => undefined },
    secrets: { ensureReferencesExist: async () => undefined },
    templates: { resolveForPod: async () => assert.fail('no templates here') },
    prices: new PriceTable(catalog.data),
    stopGraceMs: 0,
    log: silentLogger,
    settle,
    now,
  });
  return { pods, engine };
}
