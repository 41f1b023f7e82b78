// Queue operations read their endpoint on every request. A short-lived copy saves a database
// round trip per call; any change, on this replica or another (over the event bus), drops the
// copy at once, and the time bound covers a notification that was missed.
import type { EndpointRecord, Store } from '../store/store.js';

const FRESH_FOR_MS = 1000;
const MAX_ENTRIES = 10_000;

export class EndpointCache {
  private readonly entries = new Map<string, { record: EndpointRecord | undefined; at: number }>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** The endpoint if it belongs to the account; undefined for an unknown one or another account's. */
  async get(accountId: string, id: string): Promise<EndpointRecord | undefined> {
    const cached = this.entries.get(id);
    const record = cached && this.now() - cached.at < FRESH_FOR_MS ? cached.record : await this.load(id);
    return record?.accountId === accountId ? record : undefined;
  }

  invalidate(id: string): void {
    this.entries.delete(id);
  }

  private async load(id: string): Promise<EndpointRecord | undefined> {
    const record = await this.store.findEndpoint(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { record, at: this.now() });
    return record;
  }
}
