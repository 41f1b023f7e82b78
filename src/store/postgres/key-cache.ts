// API keys are read on every request. Found keys are remembered briefly; a revocation drops the
// copy at once on the replica that made it, and on every other one through the notification the
// revoking statement sends when it commits (see postgres-store.ts). The time bound covers a
// notification that was missed while a replica's listening connection was down. The requests
// that find a copy gone at the same moment share one read.
import type { ApiKeyRecord } from '../store.js';
import { SharedLoads } from '../../domain/shared-loads.js';

const FRESH_FOR_MS = 1000;
const MAX_ENTRIES = 10_000;

export class ApiKeyCache {
  private readonly entries = new Map<string, { record: ApiKeyRecord; at: number }>();
  private readonly loads = new SharedLoads<ApiKeyRecord | undefined>();
  /** Moves on at every forget: a read that started before one is not remembered (it may predate the change). */
  private generation = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The key from its copy while that is fresh, else from `read` (shared with the calls reading it meanwhile). */
  get(id: string, read: () => Promise<ApiKeyRecord | undefined>): Promise<ApiKeyRecord | undefined> {
    const cached = this.entries.get(id);
    if (cached && this.now() - cached.at < FRESH_FOR_MS) return Promise.resolve(cached.record);
    if (cached) this.entries.delete(id);
    return this.loads.load(id, () => this.readAndRemember(id, read));
  }

  forget(id: string): void {
    this.generation++;
    this.entries.delete(id);
    this.loads.forget(id);
  }

  /** Unknown ids are not remembered: a key made on another replica works at once. */
  private async readAndRemember(id: string, read: () => Promise<ApiKeyRecord | undefined>): Promise<ApiKeyRecord | undefined> {
    const started = { generation: this.generation, at: this.now() };
    const record = await read();
    if (!record || started.generation !== this.generation) return record;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { record, at: started.at });
    return record;
  }
}
