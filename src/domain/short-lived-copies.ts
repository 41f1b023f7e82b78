// Copies of records kept for a short time, to spare a query per request. The requests that find a
// copy expired at the same moment share one read: on a busy server each would otherwise send the
// same query at once, as many round trips and pool connections as requests in flight. `forget`
// (the record changed) drops the copy and makes later requests read again rather than join a read
// begun before the change; such a read is answered but not kept.

export interface ShortLivedCopiesOptions<V> {
  freshForMs: number;
  maxEntries: number;
  now?: () => number;
  /** Which values are kept (all by default). */
  keep?: (value: V) => boolean;
}

export class ShortLivedCopies<V> {
  private readonly copies = new Map<string, { value: V; at: number }>();
  private readonly reads = new Map<string, Promise<V>>();
  /** Moves on at every forget: a read that started before one may predate the change. */
  private generation = 0;
  private readonly now: () => number;

  constructor(private readonly options: ShortLivedCopiesOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  /** The copy while it is fresh, else the read under way for `key`, else a new one made with `read`. */
  get(key: string, read: () => Promise<V>): Promise<V> {
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
