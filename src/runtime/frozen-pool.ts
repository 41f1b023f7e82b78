// FlashBoot: workers scaled down are kept frozen (not running, holding no job) for a while, so
// the next scale-up resumes one instead of cold-starting. PRIORITY_FLASHBOOT keeps more, longer.
import type { FlashBoot } from '../domain/endpoint-spec.js';

export const FROZEN_POOLS: Record<Exclude<FlashBoot, 'OFF'>, { size: number; retentionMs: number }> = {
  FLASHBOOT: { size: 2, retentionMs: 5 * 60_000 },
  PRIORITY_FLASHBOOT: { size: 5, retentionMs: 30 * 60_000 },
};

interface Frozen {
  workerId: string;
  version: number;
  frozenAt: number;
}

export class FrozenPool {
  private readonly pools = new Map<string, Frozen[]>();

  private pool(endpointId: string): Frozen[] {
    let pool = this.pools.get(endpointId);
    if (!pool) {
      pool = [];
      this.pools.set(endpointId, pool);
    }
    return pool;
  }

  hasRoom(endpointId: string, mode: FlashBoot): boolean {
    return mode !== 'OFF' && this.pool(endpointId).length < FROZEN_POOLS[mode].size;
  }

  add(endpointId: string, workerId: string, version: number, now: number): void {
    this.pool(endpointId).push({ workerId, version, frozenAt: now });
  }

  /** The most recently frozen worker of the current version, removed from the pool. */
  take(endpointId: string, version: number): string | undefined {
    const pool = this.pool(endpointId);
    for (let i = pool.length - 1; i >= 0; i--) {
      if (pool[i]!.version === version) return pool.splice(i, 1)[0]!.workerId;
    }
    return undefined;
  }

  remove(endpointId: string, workerId: string): void {
    const pool = this.pool(endpointId);
    const index = pool.findIndex((f) => f.workerId === workerId);
    if (index >= 0) pool.splice(index, 1);
  }

  /** Frozen workers past retention, of an old version, or kept although FlashBoot was turned off. */
  expired(endpointId: string, mode: FlashBoot, version: number, now: number): string[] {
    const retention = mode === 'OFF' ? 0 : FROZEN_POOLS[mode].retentionMs;
    return this.pool(endpointId)
      .filter((f) => mode === 'OFF' || f.version !== version || now - f.frozenAt >= retention)
      .map((f) => f.workerId);
  }

  /** The worker frozen longest ago, of any endpoint but `except`. */
  oldest(except: string): string | undefined {
    let found: Frozen | undefined;
    for (const [endpointId, pool] of this.pools) {
      if (endpointId === except) continue;
      for (const f of pool) if (!found || f.frozenAt < found.frozenAt) found = f;
    }
    return found?.workerId;
  }

  size(endpointId: string): number {
    return this.pool(endpointId).length;
  }
}
