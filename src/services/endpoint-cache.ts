// Queue operations read their endpoint on every request. A short-lived copy saves a database
// round trip per call; any change, on this replica or another (over the event bus), drops the
// copy at once, and the time bound covers a notification that was missed.
import type { EndpointRecord, Store } from '../store/store.js';
import { ShortLivedCopies } from '../domain/short-lived-copies.js';

export class EndpointCache {
  private readonly copies: ShortLivedCopies<EndpointRecord | undefined>;

  constructor(
    private readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.copies = new ShortLivedCopies({ freshForMs: 1000, maxEntries: 10_000, now });
  }

  /** The endpoint if it belongs to the account; undefined for an unknown one or another account's. */
  async get(accountId: string, id: string): Promise<EndpointRecord | undefined> {
    const record = await this.copies.get(id, () => this.store.findEndpoint(id));
    return record?.accountId === accountId ? record : undefined;
  }

  invalidate(id: string): void {
    this.copies.forget(id);
  }
}
