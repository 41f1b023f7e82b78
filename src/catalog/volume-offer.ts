// Which data centers offer network volumes in this deployment: those where it runs workers, since
// a volume is a directory those workers mount. Their catalog entries say so (STANDARD); the
// others say they offer none, whatever the catalog file lists, so the catalog never promises a
// volume Gantry could not create.
import { Catalog } from '../domain/catalog.js';
import type { VolumeType } from '../domain/network-volume.js';
import type { Capacity } from './capacity.js';

/** One tier: a directory on a (possibly shared) file system has no faster kind. */
const OFFERED_TYPES: VolumeType[] = ['STANDARD'];

export function offerVolumesWhereWorkersRun(catalog: Catalog, capacity: Capacity): Catalog {
  const hosting = new Set([...capacity.gpus, ...capacity.cpus].map((site) => site.dataCenterId));
  return new Catalog({
    ...catalog.data,
    dataCenters: catalog.data.dataCenters.map((dc) => ({ ...dc, networkVolumeTypes: hosting.has(dc.id) ? [...OFFERED_TYPES] : [] })),
  });
}
