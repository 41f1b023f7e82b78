// The LISTEN/NOTIFY channel replicas share (the event bus in src/cluster speaks on it). The store
// sends on it itself where a change must reach every replica when, and only if, it commits.

export const EVENT_CHANNEL = 'gantry_events';

/** Names the store as the sender of a payload, so that every replica, the sending one too, acts on it. */
export const STORE_SENDER = '-';

/** The payload telling replicas that an API key changed (its cached copy must go). */
export function keyChangedPayload(id: string): string {
  return `${STORE_SENDER}\nk ${id}`;
}
