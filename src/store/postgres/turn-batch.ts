// Group commit for hot statements: calls that arrive while the previous batch of the same kind is
// still at the database (or in the same event-loop turn) are sent together as one statement, so
// a busy replica makes one round trip, and one commit, for many requests. An idle replica sends a
// call at the end of its turn, so nothing waits on a timer. Every call still gets its own answer:
// a batch that fails fails each of its calls (none of them committed).

/** Runs one batch: answers one result per item, in the items' order. */
export type BatchRun<I, R> = (items: I[]) => Promise<R[]>;

interface Pending<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export interface TurnBatchOptions<I> {
  /** The most items in one batch. */
  maxItems?: number;
  /** Items with the same key never share a batch (a later one goes into the next). */
  key?: (item: I) => string;
}

export class TurnBatch<I, R> {
  private queue: Pending<I, R>[] = [];
  /** A batch of this kind is at the database: calls meanwhile wait and join the next one (decision 16). */
  private running = false;
  private scheduled = false;
  private readonly maxItems: number;

  constructor(
    private readonly run: BatchRun<I, R>,
    private readonly options: TurnBatchOptions<I> = {},
  ) {
    this.maxItems = options.maxItems ?? 256;
  }

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    // The end of this turn: calls made by every request handled in it go out together.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    // Only schedule() gets here, and it came only while no batch was running and calls waited.
    this.running = true;
    void this.send(this.take()).finally(() => {
      this.running = false;
      this.schedule();
    });
  }

  /** The next batch: up to maxItems, without two items of one key. */
  private take(): Pending<I, R>[] {
    const key = this.options.key;
    if (!key) return this.queue.splice(0, this.maxItems);
    const batch: Pending<I, R>[] = [];
    const later: Pending<I, R>[] = [];
    const keys = new Set<string>();
    for (const pending of this.queue) {
      const k = key(pending.item);
      if (batch.length >= this.maxItems || keys.has(k)) later.push(pending);
      else {
        keys.add(k);
        batch.push(pending);
      }
    }
    this.queue = later;
    return batch;
  }

  private async send(batch: Pending<I, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}

/**
 * One TurnBatch per key (an endpoint's takes, an account's rate-limit counts): calls of different
 * keys never share a statement. Idle keys' batchers are dropped now and then; one is cheap to make again.
 */
export class KeyedTurnBatches<I, R> {
  private readonly byKey = new Map<string, TurnBatch<I, R>>();

  constructor(
    private readonly run: (key: string, items: I[]) => Promise<R[]>,
    private readonly options: TurnBatchOptions<I> = {},
  ) {}

  add(key: string, item: I): Promise<R> {
    let batch = this.byKey.get(key);
    if (!batch) {
      batch = new TurnBatch((items) => this.run(key, items), this.options);
      if (this.byKey.size >= 10_000) this.byKey.clear();
      this.byKey.set(key, batch);
    }
    return batch.add(item);
  }
}
