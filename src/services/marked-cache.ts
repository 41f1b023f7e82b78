// Records read from the store, kept while a mark the store offers stays the same: a write that
// may concern them, by this process or another, moves the mark and drops them all, so a revoked
// key is never served from here. A store that cannot tell (PostgreSQL, written by other
// replicas) answers no mark, and then every read goes to the database.

const MAX_ENTRIES = 10_000;

export class MarkedCache<V> {
  private mark: number | undefined;
  private readonly entries = new Map<string, V>();

  constructor(private readonly readMark: () => number | undefined) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const mark = this.readMark();
    if (mark === undefined) return load();
    if (mark !== this.mark) {
      this.entries.clear();
      this.mark = mark;
    }
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = await load();
    // Something written while it loaded may have made it stale: answer it, but do not keep it.
    if (this.readMark() !== mark) return value;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
