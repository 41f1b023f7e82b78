// Network volumes on disk: one directory per volume under the volume root (an NFS or other
// shared mount when replicas run on several hosts). Workers mount it; Gantry creates it with the
// volume and removes it with the volume. A plain directory has no quota, so a volume's size is
// not enforced: its usage is measured instead, by a walk bounded in time and in entries.
import { lstat, mkdir, opendir, rm, chmod } from 'node:fs/promises';
import { join } from 'node:path';

export interface VolumeUsage {
  usedBytes: number;
  /** False when the walk stopped at its bounds: usedBytes counts only what it reached. */
  complete: boolean;
}

export interface UsageBounds {
  maxEntries: number;
  maxMs: number;
}

const DEFAULT_BOUNDS: UsageBounds = { maxEntries: 100_000, maxMs: 2_000 };
const SAFE_ID = /^[a-z0-9][a-z0-9_-]*$/;

export class VolumeDirectories {
  constructor(
    readonly root: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The host path of a volume's directory. */
  pathOf(volumeId: string): string {
    // Ids are made by Gantry; this only keeps a bad one from naming a path outside the root.
    if (!SAFE_ID.test(volumeId)) throw new Error(`not a network volume id: '${volumeId}'`);
    return join(this.root, volumeId);
  }

  /** Creates the volume's directory, readable by its owner only (workers run as that owner or as root). */
  async create(volumeId: string): Promise<string> {
    await mkdir(this.root, { recursive: true });
    const path = this.pathOf(volumeId);
    await mkdir(path, { mode: 0o700 });
    // mkdir's mode passes through the umask; the directory must be 0700 whatever it is.
    await chmod(path, 0o700);
    return path;
  }

  async remove(volumeId: string): Promise<void> {
    await rm(this.pathOf(volumeId), { recursive: true, force: true });
  }

  /** Bytes of the files under the volume (links not followed), counted up to the bounds. */
  async usage(volumeId: string, bounds: UsageBounds = DEFAULT_BOUNDS): Promise<VolumeUsage> {
    const deadline = this.now() + bounds.maxMs;
    const pending = [this.pathOf(volumeId)];
    let usedBytes = 0;
    let entries = 0;
    // A file with several hard links takes its bytes once.
    const linked = new Set<string>();
    while (pending.length > 0) {
      const dir = pending.pop()!;
      let listing;
      try {
        listing = await opendir(dir);
      } catch {
        continue; // removed meanwhile, or not readable: nothing of it is counted
      }
      for await (const entry of listing) {
        entries++;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) pending.push(path);
        else
          usedBytes += await lstat(path).then(
            (s) => {
              if (s.nlink < 2) return s.size;
              const inode = `${s.dev}:${s.ino}`;
              if (linked.has(inode)) return 0;
              linked.add(inode);
              return s.size;
            },
            () => 0,
          );
        // Leaving the loop closes the directory.
        if (entries >= bounds.maxEntries || this.now() > deadline) return { usedBytes, complete: false };
      }
    }
    return { usedBytes, complete: true };
  }
}
