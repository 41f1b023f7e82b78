// Queue operations read their endpoint on every request. A short-lived copy saves a database
// round trip per call; any change, on this replica or another (over the event bus), drops the
// copy at once, and the time bound covers a notification that was missed. The requests that find
// a copy gone at the same moment share one read.
import type { EndpointRecord, Store } from '../store/store.js';
import { SharedLoads } from '../domain/shared-loads.js';

const FRESH_FOR_MS = 1000;
const MAX_ENTRIES = 10_000;

export class EndpointCache {
  private readonly entries = new Map<string, { record: EndpointRecord | undefined; at: number }>();
  private readonly loads = new SharedLoads<EndpointRecord | undefined>();
  /** Moves on at every invalidation: a read that started before one is answered but not kept (it may predate the change). */
  private generation = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** The endpoint if it belongs to the account; undefined for an unknown one or another account's. */
  async get(accountId: string, id: string): Promise<EndpointRecord | undefined> {
    const cached = this.entries.get(id);
    const record = cached && this.now() - cached.at < FRESH_FOR_MS ? cached.record : await this.loads.load(id, () => this.load(id));
    return record?.accountId === accountId ? record : undefined;
  }

  invalidate(id: string): void {
    this.generation++;
    this.entries.delete(id);
    this.loads.forget(id);
  }

  private async load(id: string): Promise<EndpointRecord | undefined> {
    const generation = this.generation;
    const at = this.now();
    const record = await this.store.findEndpoint(id);
    if (generation !== this.generation) return record;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { record, at });
    return record;
  }
}
