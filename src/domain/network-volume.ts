// Network volumes as the REST API knows them: a named amount of storage in one data center that
// endpoints' workers see at /runpod-volume. The rules of creating and changing one live here.
import type { DataCenterEntry } from './catalog.js';
import { badRequest, Violations } from './errors.js';

export const VOLUME_TYPES = ['STANDARD', 'HIGH_PERFORMANCE'] as const;
export type VolumeType = (typeof VOLUME_TYPES)[number];

export const VOLUME_SIZE_GB = { min: 10, max: 4096 } as const;

/** Where a worker sees its endpoint's network volume, as on RunPod. */
export const VOLUME_MOUNT_PATH = '/runpod-volume';

export interface NetworkVolumeSpec {
  name: string;
  /** GB; it can only grow. */
  size: number;
  /** Immutable. */
  dataCenterId: string;
  /** Immutable. */
  type: VolumeType;
}

export interface CreateVolumeInput {
  name: string;
  size: number;
  dataCenter: string;
  type?: VolumeType;
}

export interface UpdateVolumeInput {
  name?: string;
  size?: number;
}

/**
 * A new volume's spec. Its data center must offer volumes (its catalog entry lists volume types:
 * in Gantry, the data centers where this deployment runs workers) and the type asked for.
 */
export function buildVolumeSpec(
  body: CreateVolumeInput,
  dataCenter: DataCenterEntry | undefined,
  known: DataCenterEntry[],
): NetworkVolumeSpec {
  const offering = known.filter((dc) => dc.networkVolumeTypes.length > 0).map((dc) => dc.id);
  if (!dataCenter || dataCenter.networkVolumeTypes.length === 0) {
    const where = offering.length > 0 ? offering.join(', ') : 'none';
    throw badRequest(`network volumes cannot be created in data center '${body.dataCenter}'`, [
      `dataCenter: '${body.dataCenter}' offers no network volumes here; data centers that do: ${where}`,
    ]);
  }
  // The data center's first type is its default (primary) tier.
  const type = body.type ?? (dataCenter.networkVolumeTypes[0] as VolumeType);
  if (!dataCenter.networkVolumeTypes.includes(type)) {
    throw badRequest(`data center '${dataCenter.id}' offers no ${type} volumes`, [
      `type: '${dataCenter.id}' offers ${dataCenter.networkVolumeTypes.join(', ')}`,
    ]);
  }
  return { name: body.name, size: body.size, dataCenterId: dataCenter.id, type };
}

/** A volume's storage cannot be reduced; everything else sent replaces what is there. */
export function applyVolumePatch(current: NetworkVolumeSpec, body: UpdateVolumeInput): NetworkVolumeSpec {
  const v = new Violations();
  if (body.size !== undefined && body.size < current.size) {
    v.add('size', `must be at least the current size (${current.size} GB): a network volume cannot shrink`);
  }
  v.throwIfAny('a network volume cannot shrink');
  return { ...current, name: body.name ?? current.name, size: body.size ?? current.size };
}
