// The notifications replicas exchange. Each names what changed; a receiver wakes its own waiters
// and re-reads the store, so a notification carries no state that could go stale.

export type ClusterEvent =
  /** A job changed (result, progress, stream chunk, status): wake its waiters. */
  | { kind: 'job'; id: string }
  /** Jobs were queued on an endpoint: wake takers. */
  | { kind: 'queued'; id: string; count: number }
  /** A worker has stop requests waiting: wake its stop channel. */
  | { kind: 'stop'; id: string }
  /** An endpoint was created, changed or deleted: the autoscaler looks again. */
  | { kind: 'endpoint'; id: string }
  /** An API key was revoked: cached copies go (sent by the store with the change, see store/postgres/notifications.ts). */
  | { kind: 'key'; id: string };

const CODES = { job: 'j', queued: 'q', stop: 's', endpoint: 'e', key: 'k' } as const;
const KINDS = { j: 'job', q: 'queued', s: 'stop', e: 'endpoint', k: 'key' } as const;

/** One line per event: `<code> <id>[ <count>]`. Ids are Gantry's own (no spaces or newlines). */
export function encodeEvent(event: ClusterEvent): string {
  return event.kind === 'queued' ? `q ${event.id} ${event.count}` : `${CODES[event.kind]} ${event.id}`;
}

export function decodeEvent(line: string): ClusterEvent | undefined {
  const [code, id, count] = line.split(' ');
  const kind = KINDS[code as keyof typeof KINDS];
  if (!kind || !id) return undefined;
  if (kind === 'queued') return { kind, id, count: Math.max(1, Number(count) || 1) };
  return { kind, id };
}

export interface EventBus {
  /** Sends to the other replicas; delivery to this one is the caller's business. */
  publish(event: ClusterEvent): void;
  /** Events from the other replicas. */
  subscribe(listener: (event: ClusterEvent) => void): void;
}
