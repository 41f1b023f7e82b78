// Whether the engine can cap a container's writable layer (`--storage-opt size=`): btrfs, zfs and
// devicemapper can; overlay2 only on xfs mounted with project quotas, which the engine's info
// cannot tell, so that case is tried and confirmed by the first container that asks.
export type DiskLimitSupport = { supported: true } | { supported: false; reason: string };

export interface StorageInfo {
  Driver?: string;
  DriverStatus?: [string, string][];
}

const LIMITING_DRIVERS = new Set(['btrfs', 'zfs', 'devicemapper', 'windowsfilter']);

export function diskLimitSupport(info: StorageInfo): DiskLimitSupport {
  const driver = info.Driver ?? 'unknown';
  if (LIMITING_DRIVERS.has(driver)) return { supported: true };
  const backing = info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
  if (driver === 'overlay2' && backing === 'xfs') return { supported: true };
  return {
    supported: false,
    reason: `storage driver ${driver}${backing ? ` on ${backing}` : ''} cannot limit a container's writable layer (overlay2 needs xfs with pquota; btrfs, zfs and devicemapper can)`,
  };
}

/** The engine's refusal of a size option (overlay2 on xfs without pquota), told from other create errors. */
export function isStorageOptRefusal(message: string): boolean {
  return /storage-?opt|pquota|size option/i.test(message);
}
