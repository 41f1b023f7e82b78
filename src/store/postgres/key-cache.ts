// API keys are read on every request. Found keys are remembered briefly; a revocation drops the
// copy at once on the replica that made it, and on every other one through the notification the
// revoking statement sends when it commits (see postgres-store.ts). The time bound covers a
// notification that was missed while a replica's listening connection was down.
import type { ApiKeyRecord } from '../store.js';

const FRESH_FOR_MS = 1000;
const MAX_ENTRIES = 10_000;

export class ApiKeyCache {
  private readonly entries = new Map<string, { record: ApiKeyRecord; at: number }>();
  /** Moves on at every forget: a read that started before one is not remembered (it may predate the change). */
  private generation = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get(id: string): ApiKeyRecord | undefined {
    const cached = this.entries.get(id);
    if (!cached) return undefined;
    if (this.now() - cached.at < FRESH_FOR_MS) return cached.record;
    this.entries.delete(id);
    return undefined;
  }

  /** Taken before reading a key from the database, and handed back to remember it. */
  readStarted(): { generation: number; at: number } {
    return { generation: this.generation, at: this.now() };
  }

  /** Unknown ids are not remembered: a key made on another replica works at once. */
  remember(record: ApiKeyRecord, read: { generation: number; at: number }): void {
    if (read.generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(record.id, { record, at: read.at });
  }

  forget(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }
}
