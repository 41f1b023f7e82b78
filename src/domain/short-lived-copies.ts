// Copies of records kept to spare a query per request, valid for a time, or for as long as a mark
// the store offers stays the same (a number that moves whenever any of them may have changed).
// The requests that find a copy missing or expired at the same moment share one read: on a busy
// server each would otherwise send the same query at once, as many round trips and pool
// connections as requests in flight. `forget` (the record changed), or a moved mark for all, drops
// the copies and makes later requests read again rather than join a read begun before the change;
// such a read is answered but not kept.

export interface ShortLivedCopiesOptions<V> {
  /** Infinity: as long as the mark stays the same. */
  freshForMs: number;
  maxEntries: number;
  now?: () => number;
  /** Which values are kept (all by default). */
  keep?: (value: V) => boolean;
  /** See above; a mark of undefined (the store cannot tell) keeps nothing and shares no read. */
  mark?: () => number | undefined;
}

export class ShortLivedCopies<V> {
  private readonly copies = new Map<string, { value: V; at: number }>();
  private readonly reads = new Map<string, Promise<V>>();
  /** Moves on at every forget: a read that started before one may predate the change. */
  private generation = 0;
  private markSeen: number | undefined;
  private readonly now: () => number;

  constructor(private readonly options: ShortLivedCopiesOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  /** The copy while it is valid, else the read under way for `key`, else a new one made with `read`. */
  get(key: string, read: () => Promise<V>): Promise<V> {
    if (this.options.mark) {
      const mark = this.options.mark();
      if (mark === undefined) return read();
      if (mark !== this.markSeen) this.forgetAll(mark);
    }
    const copy = this.copies.get(key);
    if (copy && this.now() - copy.at < this.options.freshForMs) return Promise.resolve(copy.value);
    if (copy) this.copies.delete(key);
    const running = this.reads.get(key);
    if (running) return running;
    const started = this.readAndKeep(key, read).finally(() => {
      if (this.reads.get(key) === started) this.reads.delete(key);
    });
    this.reads.set(key, started);
    return started;
  }

  forget(key: string): void {
    this.generation++;
    this.copies.delete(key);
    this.reads.delete(key);
  }

  private forgetAll(mark: number): void {
    this.markSeen = mark;
    this.generation++;
    this.copies.clear();
    this.reads.clear();
  }

  private async readAndKeep(key: string, read: () => Promise<V>): Promise<V> {
    const generation = this.generation;
    const at = this.now();
    const value = await read();
    if (generation !== this.generation || !(this.options.keep?.(value) ?? true)) return value;
    if (this.copies.size >= this.options.maxEntries) this.copies.clear();
    this.copies.set(key, { value, at });
    return value;
  }
}
