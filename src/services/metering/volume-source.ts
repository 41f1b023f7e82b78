// Network volumes as a metered source, read from the store on every pass: a volume costs from its
// creation at its size and tier. Being durable rows, they are metered the same by whichever
// replica leads. A resize or delete settles the volume up to that moment first (NetworkVolumeService),
// so the old size is billed exactly until the change.
import type { Store, NetworkVolumeRecord } from '../../store/store.js';
import type { UsageSubject } from '../../domain/usage.js';
import type { MeteredSubject, UsageSource } from './usage-source.js';

export class VolumeUsageSource implements UsageSource {
  readonly name = 'network volumes';

  constructor(private readonly store: Store) {}

  async subjects(): Promise<MeteredSubject[]> {
    return (await this.store.listAllNetworkVolumes()).map((volume) => volumeMetered(volume));
  }
}

export function volumeSubject(volume: NetworkVolumeRecord): UsageSubject {
  return {
    subjectId: `volume:${volume.id}`,
    accountId: volume.accountId,
    family: 'NETWORK_VOLUME',
    ownerId: volume.id,
    meter: 'VOLUME',
    resource: volume.spec.type,
    quantity: volume.spec.size,
  };
}

/** The volume as it stands: costing since its creation, at its current size. */
export function volumeMetered(volume: NetworkVolumeRecord): MeteredSubject {
  return { subject: volumeSubject(volume), timeline: [{ at: Date.parse(volume.createdAt), state: 'ACTIVE' }] };
}
