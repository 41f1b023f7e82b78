// Network volumes of an account: create (with its directory), read (with what it holds), rename
// or grow, and delete (with its files) unless an endpoint still uses it.
import type { Clock } from '../domain/clock.js';
import type { Catalog } from '../domain/catalog.js';
import { conflict, notFound } from '../domain/errors.js';
import { randomId } from '../domain/ids.js';
import { applyVolumePatch, buildVolumeSpec, type CreateVolumeInput, type UpdateVolumeInput } from '../domain/network-volume.js';
import type { VolumeDirectories, VolumeUsage } from '../runtime/volumes/volume-directories.js';
import type { NetworkVolumeRecord, Store } from '../store/store.js';

export const newNetworkVolumeId = () => randomId(10);

/** Records a volume's usage up to `at` as it stands, before it is resized or deleted (metering). */
export type SettleVolume = (volume: NetworkVolumeRecord, at: number) => Promise<void>;

export class NetworkVolumeService {
  constructor(
    private readonly store: Store,
    /** The deployment's catalog: data centers offer volumes where workers run (catalog/volume-offer.ts). */
    private readonly catalog: Catalog,
    private readonly directories: VolumeDirectories,
    private readonly settle: SettleVolume = async () => undefined,
    /** A volume's usage is metered from its creation and settled at its changes by this clock (decision 47). */
    private readonly now: Clock = Date.now,
  ) {}

  list(accountId: string): Promise<NetworkVolumeRecord[]> {
    return this.store.listNetworkVolumes(accountId);
  }

  async get(accountId: string, id: string): Promise<NetworkVolumeRecord> {
    const volume = await this.store.getNetworkVolume(accountId, id);
    if (!volume) throw notFound(`network volume ${id} not found`);
    return volume;
  }

  /** What the volume's files take now; its size is not enforced (see volume-directories.ts). */
  usage(volume: NetworkVolumeRecord): Promise<VolumeUsage> {
    return this.directories.usage(volume.id);
  }

  async create(accountId: string, body: CreateVolumeInput, now = new Date(this.now())): Promise<NetworkVolumeRecord> {
    const spec = buildVolumeSpec(body, this.catalog.dataCenter(body.dataCenter), this.catalog.data.dataCenters);
    const volume: NetworkVolumeRecord = {
      id: newNetworkVolumeId(),
      accountId,
      spec,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.directories.create(volume.id);
    try {
      await this.store.insertNetworkVolume(volume);
    } catch (error) {
      await this.directories.remove(volume.id).catch(() => undefined);
      throw error;
    }
    return volume;
  }

  async update(accountId: string, id: string, body: UpdateVolumeInput, now = new Date(this.now())): Promise<NetworkVolumeRecord> {
    // The write refuses to shrink: a grow that landed since the read is read again and judged anew.
    for (;;) {
      const current = await this.get(accountId, id);
      const next: NetworkVolumeRecord = { ...current, spec: applyVolumePatch(current.spec, body), updatedAt: now.toISOString() };
      if (next.spec.size !== current.spec.size) await this.settle(current, now.getTime());
      if (await this.store.updateNetworkVolume(next)) return next;
    }
  }

  /** Its files go with it. An endpoint that names it keeps it: the endpoint must let go first. */
  async delete(accountId: string, id: string, now = new Date(this.now())): Promise<void> {
    const volume = await this.get(accountId, id);
    const users = (await this.store.listEndpoints(accountId)).filter((endpoint) => endpoint.spec.networkVolumes.includes(id));
    if (users.length > 0) {
      throw conflict(
        `network volume ${id} is used by endpoint${users.length > 1 ? 's' : ''} ${users.map((e) => e.id).join(', ')}; remove it from their networkVolumes first`,
      );
    }
    const pods = (await this.store.pods.list(accountId)).filter((pod) => pod.spec.network?.volumeId === id);
    if (pods.length > 0) {
      throw conflict(
        `network volume ${id} is mounted by pod${pods.length > 1 ? 's' : ''} ${pods.map((p) => p.id).join(', ')}; terminate ${pods.length > 1 ? 'them' : 'it'} first`,
      );
    }
    await this.settle(volume, now.getTime());
    if (!(await this.store.deleteNetworkVolume(accountId, id))) throw notFound(`network volume ${id} not found`);
    await this.directories.remove(id);
  }
}
