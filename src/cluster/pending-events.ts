// Encoded events waiting to go out to the other replicas. A fact (a job changed, a key changed)
// goes once however often it was published; queued jobs are a count, so the queued events of one
// endpoint add up: three submits must wake three takers, not one.
import { decodeEvent, encodeEvent } from './events.js';

export class PendingEvents {
  private readonly facts = new Set<string>();
  private readonly queued = new Map<string, number>();

  get size(): number {
    return this.facts.size + this.queued.size;
  }

  add(line: string): void {
    const event = line.startsWith('q ') ? decodeEvent(line) : undefined;
    if (event?.kind === 'queued') this.queued.set(event.id, (this.queued.get(event.id) ?? 0) + event.count);
    else this.facts.add(line);
  }

  /** Removes and hands over lines, queued counts first, for as long as `fits` takes them. */
  takeWhile(fits: (line: string) => boolean): void {
    for (const [id, count] of this.queued) {
      if (!fits(encodeEvent({ kind: 'queued', id, count }))) return;
      this.queued.delete(id);
    }
    for (const line of this.facts) {
      if (!fits(line)) return;
      this.facts.delete(line);
    }
  }
}
