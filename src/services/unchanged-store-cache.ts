// Records read from the store, kept while the store's change mark says nothing has changed since:
// any write, by this process or another, drops them all, so a revoked key or an edited endpoint
// is never served from here. A store that cannot tell (PostgreSQL, written by other replicas)
// is asked every time.
import type { Store } from '../store/store.js';

const MAX_ENTRIES = 10_000;

export class UnchangedStoreCache<V> {
  private mark: number | undefined;
  private readonly entries = new Map<string, V>();

  constructor(private readonly store: Pick<Store, 'changeMark'>) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const mark = this.store.changeMark();
    if (mark === undefined) return load();
    if (mark !== this.mark) {
      this.entries.clear();
      this.mark = mark;
    }
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = await load();
    // Something written while it loaded may have made it stale: answer it, but do not keep it.
    if (this.store.changeMark() !== mark) return value;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
