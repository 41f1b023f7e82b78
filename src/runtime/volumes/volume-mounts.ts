// The network volumes an endpoint's workers mount: each volume's directory, by data center. A
// worker is placed only where one of them is and mounts that one (one per data center).
import type { EndpointRecord, Store } from '../../store/store.js';
import type { VolumeDirectories } from './volume-directories.js';

export interface EndpointVolume {
  volumeId: string;
  dataCenterId: string;
  hostPath: string;
}

export class VolumeMounts {
  constructor(
    private readonly store: Store,
    private readonly directories: VolumeDirectories,
  ) {}

  /** The endpoint's volumes that exist (one deleted since is left out; deleting a used one is refused). */
  async of(endpoint: EndpointRecord): Promise<EndpointVolume[]> {
    const volumes: EndpointVolume[] = [];
    for (const volumeId of endpoint.spec.networkVolumes) {
      const volume = await this.store.getNetworkVolume(endpoint.accountId, volumeId);
      if (volume) volumes.push({ volumeId, dataCenterId: volume.spec.dataCenterId, hostPath: this.directories.pathOf(volumeId) });
    }
    return volumes;
  }
}

/** Where an endpoint with volumes may place a worker: its data centers that hold one of them. */
export function placementDataCenters(dataCenterIds: string[], volumes: EndpointVolume[]): string[] {
  if (volumes.length === 0) return dataCenterIds;
  const withVolume = volumes.map((v) => v.dataCenterId);
  return dataCenterIds.length === 0 ? withVolume : dataCenterIds.filter((id) => withVolume.includes(id));
}
