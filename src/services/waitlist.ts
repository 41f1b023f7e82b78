// Long-poll waiters keyed by job, endpoint or worker: a waiter sleeps until it is woken, its time
// runs out, or its client goes away. With several replicas, wake-ups also arrive from the others
// over the event bus, and every sleep is cut to a fallback period so that a missed notification
// only delays a waiter, which re-reads the store when it wakes.
import { encodeEvent, finishedJobOf, finishedJobText, type ClusterEvent, type EventBus, type FinishedJob } from '../cluster/events.js';
import type { JobRecord, JobState } from '../store/job-store.js';
import type { Cancellation } from '../domain/cancellation.js';

interface Waiter<T, O> {
  /**
   * Ends the wait: with `true` or what the waker passed (for job waiters in the process that
   * finished the job, its final row) on a wake-up, false on time or abort.
   */
  finish: (woken: T | boolean) => void;
  ended: boolean;
  /** What the waiter accepts handed to it directly (see claim); undefined: it only wakes. */
  offer: O | undefined;
}

/** A waiter taken out of its list to be handed a value; it wakes with that value, or on its own if it ends first. */
export interface Claim<T, O> {
  offer: O;
  /** Wakes the waiter with `value`; false when it had already ended (timed out, or its client left). */
  deliver(value: T): boolean;
  /** Nothing to hand after all: the waiter wakes as on any wake-up and looks again. */
  release(): void;
}

/**
 * How many keys' latest wake-ups are remembered at least (at most twice as many) for waiters that
 * read the store before they wait.
 */
const REMEMBERED_WAKES = 16_384;

export class Waitlist<T = true, O = never> {
  private readonly waiters = new Map<string, Set<Waiter<T, O>>>();
  /**
   * Counts wake-ups; `woken` holds the count at each recent key's latest one, `wokenBefore` the
   * generation before it. Two generations instead of one map trimmed oldest-first: deleting a
   * map's first entry over and over leaves holes its next lookup of the first entry walks past.
   */
  private wakeCount = 0;
  private woken = new Map<string, number>();
  private wokenBefore = new Map<string, number>();

  /** `maxSleepMs`: the longest a waiter sleeps before re-checking on its own (Infinity: never). */
  constructor(private readonly maxSleepMs = Infinity) {}

  /**
   * Taken before reading the store, and passed to `wait`: a wake-up that came after it (while the
   * read waited for its commit, say) ends the wait at once instead of being lost.
   */
  mark(): number {
    return this.wakeCount;
  }

  /**
   * Resolves with the wake-up's value (true, or what the waker passed) when woken, false on timeout,
   * fallback re-check or abort. Callers re-check and loop. With `offer`, the waiter may be claimed
   * and handed a value instead (claim), for as long as it waits.
   */
  wait(key: string, timeoutMs: number, signal?: Cancellation, since?: number, offer?: O): Promise<T | boolean> {
    if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
    if (since !== undefined && (this.woken.get(key) ?? this.wokenBefore.get(key) ?? -1) >= since) return Promise.resolve(true);
    timeoutMs = Math.min(timeoutMs, this.maxSleepMs);
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) {
        set = new Set();
        this.waiters.set(key, set);
      }
      const waiter: Waiter<T, O> = {
        finish: (woken) => {
          if (waiter.ended) return;
          waiter.ended = true;
          clearTimeout(timer);
          forgetAbort?.();
          this.remove(key, waiter);
          resolve(woken);
        },
        ended: false,
        offer,
      };
      const timer = setTimeout(() => waiter.finish(false), timeoutMs);
      const forgetAbort = signal?.onAbort(() => waiter.finish(false));
      set.add(waiter);
    });
  }

  private remove(key: string, waiter: Waiter<T, O>): void {
    const set = this.waiters.get(key);
    if (!set) return;
    set.delete(waiter);
    if (set.size === 0) this.waiters.delete(key);
  }

  wakeAll(key: string, value: T | true = true): void {
    this.remember(key);
    const set = this.waiters.get(key);
    if (!set) return;
    for (const waiter of [...set]) waiter.finish(value);
  }

  /** Wakes the longest-waiting waiter only, so one new job does not stampede every idle worker. */
  wakeOne(key: string): boolean {
    this.remember(key);
    const set = this.waiters.get(key);
    const first = set?.values().next();
    if (!first || first.done) return false;
    first.value.finish(true);
    return true;
  }

  /**
   * Takes the longest-waiting waiter whose offer `accepts` out of the list (no wake-up reaches it
   * meanwhile), to be handed a value once there is one; undefined when none waits.
   */
  claim(key: string, accepts: (offer: O) => boolean = () => true): Claim<T, O> | undefined {
    const set = this.waiters.get(key);
    if (!set) return undefined;
    for (const waiter of set) {
      if (waiter.offer === undefined || !accepts(waiter.offer)) continue;
      this.remove(key, waiter);
      // Its own end (time or abort) still comes while it is claimed; after it, nothing is handed.
      return {
        offer: waiter.offer,
        deliver: (value) => {
          if (waiter.ended) return false;
          waiter.finish(value);
          return true;
        },
        release: () => waiter.finish(true),
      };
    }
    return undefined;
  }

  private remember(key: string): void {
    if (this.woken.size >= REMEMBERED_WAKES && !this.woken.has(key)) {
      this.wokenBefore = this.woken;
      this.woken = new Map();
    }
    this.woken.set(key, this.wakeCount++);
  }

  count(key: string): number {
    return this.waiters.get(key)?.size ?? 0;
  }
}

/** What a long-polling taker accepts: a job submitted while it waits, stored already taken by it. */
export interface TakerOffer {
  workerId: string;
  leaseMs: number;
  /** The most jobs the take accepts. */
  limit: number;
}

/** The notifications the queue runs on, delivered here at once and to the other replicas over the bus. */
export class JobEvents {
  /**
   * Woken with the job's final state when this process finished it, or another replica did and
   * sent it along, so its waiters need not read it again.
   */
  readonly jobs: Waitlist<FinishedJob>;
  /** Takers, woken by queued jobs or handed one as it is submitted (the wake-up's value then). */
  readonly queues: Waitlist<JobRecord[], TakerOffer>;
  readonly stops: Waitlist;
  private readonly queuedListeners: ((endpointId: string) => void)[] = [];
  private readonly endpointListeners: ((endpointId: string) => void)[] = [];

  constructor(
    private readonly bus: EventBus | undefined = undefined,
    fallbackMs = Infinity,
  ) {
    const sleep = bus ? fallbackMs : Infinity;
    this.jobs = new Waitlist(sleep);
    this.queues = new Waitlist(sleep);
    this.stops = new Waitlist(sleep);
    bus?.subscribe((event) => this.deliver(event));
  }

  /** Called when a job is queued and no worker was waiting for it (so capacity may be needed). */
  onQueued(listener: (endpointId: string) => void): void {
    this.queuedListeners.push(listener);
  }

  /** Called when an endpoint changed on any replica. */
  onEndpointChanged(listener: (endpointId: string) => void): void {
    this.endpointListeners.push(listener);
  }

  /** `finished`: the job's row as its terminal write returned it, handed to this process's waiters. */
  jobChanged(jobId: string, finished?: JobState): void {
    this.jobs.wakeAll(jobId, finished);
    if (!this.bus?.othersListening()) return;
    const text = finished && finishedJobText(finished);
    this.bus.publish(text === undefined ? { kind: 'job', id: jobId } : { kind: 'job', id: jobId, finished: text });
  }

  /**
   * For a job about to be queued when no taker waits here: the notice its insert carries, so the
   * other replicas' takers wake as it commits (NewJob.notice); undefined when none listens.
   */
  queuedNotice(endpointId: string, count: number): string | undefined {
    const heard = this.bus?.othersListening() && this.queues.count(endpointId) === 0;
    return heard ? encodeEvent({ kind: 'queued', id: endpointId, count }) : undefined;
  }

  /**
   * Wakes this replica's idle takers first; only the jobs none of them waits for go to the other
   * replicas, unless their inserts told them already (`announced`).
   */
  jobsQueued(endpointId: string, count = 1, announced = false): void {
    let left = count;
    while (left > 0 && this.queues.wakeOne(endpointId)) left--;
    if (left === 0) return;
    for (const listener of this.queuedListeners) listener(endpointId);
    if (!announced) this.bus?.publish({ kind: 'queued', id: endpointId, count: left });
  }

  stopRequested(workerId: string): void {
    this.emit({ kind: 'stop', id: workerId });
  }

  endpointChanged(endpointId: string): void {
    this.emit({ kind: 'endpoint', id: endpointId });
  }

  private emit(event: ClusterEvent): void {
    this.deliver(event);
    this.bus?.publish(event);
  }

  private deliver(event: ClusterEvent): void {
    switch (event.kind) {
      case 'job': {
        // Read only for waiters here: every replica hears every job's event.
        const finished =
          event.finished !== undefined && this.jobs.count(event.id) > 0 ? finishedJobOf(event.id, event.finished) : undefined;
        return this.jobs.wakeAll(event.id, finished);
      }
      case 'stop':
        return this.stops.wakeAll(event.id);
      case 'endpoint':
        for (const listener of this.endpointListeners) listener(event.id);
        return;
      case 'queued':
        for (let i = 0; i < event.count; i++) {
          if (!this.queues.wakeOne(event.id)) {
            for (const listener of this.queuedListeners) listener(event.id);
            break;
          }
        }
    }
  }
}
