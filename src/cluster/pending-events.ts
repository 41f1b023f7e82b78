// Encoded events waiting to go out to the other replicas, in the order they came. A fact (a job
// changed, a key changed) goes once however often it was published; queued jobs are a count, so
// the queued events of one endpoint add up: three submits must wake three takers, not one.
import { decodeEvent, encodeEvent } from './events.js';

export class PendingEvents {
  /** A fact's line, or `q <endpoint>` with the jobs queued there so far. */
  private readonly waiting = new Map<string, number | null>();

  get size(): number {
    return this.waiting.size;
  }

  add(line: string): void {
    const event = line.startsWith('q ') ? decodeEvent(line) : undefined;
    if (event?.kind !== 'queued') return void this.waiting.set(line, null);
    const key = `q ${event.id}`;
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + event.count);
  }

  /** Removes and hands over lines, oldest first, for as long as `fits` takes them. */
  takeWhile(fits: (line: string) => boolean): void {
    for (const [key, count] of this.waiting) {
      const line = count === null ? key : encodeEvent({ kind: 'queued', id: key.slice(2), count });
      if (!fits(line)) return;
      this.waiting.delete(key);
    }
  }
}
