// Concurrent loads of the same key share one. When a short-lived copy runs out on a busy server,
// every request that finds it gone would otherwise send the same query at once: as many round
// trips and pool connections as requests in flight, for one row.

export class SharedLoads<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  /** The load of `key` under way, or a new one made with `read`. */
  load(key: string, read: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = read().finally(() => {
      if (this.inFlight.get(key) === started) this.inFlight.delete(key);
    });
    this.inFlight.set(key, started);
    return started;
  }

  /** The key changed: calls from now on start a load of their own instead of joining one that began before. */
  forget(key: string): void {
    this.inFlight.delete(key);
  }
}
