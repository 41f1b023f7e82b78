// Time that passes only when a test says so: a clock to inject as `now()` and a Scheduler whose
// intervals and "soon" callbacks fire only on advance() or runSoonCallbacks().
import type { Scheduler } from '../../src/domain/periodic-task.js';

interface Interval {
  everyMs: number;
  nextAt: number;
  fn: () => void;
}

export class ManualTime implements Scheduler {
  private current: number;
  private readonly intervals = new Set<Interval>();
  private soonQueue: (() => void)[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = start;
  }

  /** The clock, to pass where a `now()` is injected. */
  readonly now = (): number => this.current;

  every(ms: number, fn: () => void): () => void {
    const interval = { everyMs: ms, nextAt: this.current + ms, fn };
    this.intervals.add(interval);
    return () => this.intervals.delete(interval);
  }

  soon(fn: () => void): () => void {
    this.soonQueue.push(fn);
    return () => {
      this.soonQueue = this.soonQueue.filter((f) => f !== fn);
    };
  }

  /** Moves the clock on, firing the intervals that fall due on the way (each at most once). */
  advance(ms: number): void {
    this.current += ms;
    for (const interval of [...this.intervals]) {
      if (interval.nextAt > this.current) continue;
      interval.nextAt = this.current + interval.everyMs;
      interval.fn();
    }
  }

  /** Fires the "soon" callbacks asked for so far; answers how many fired. */
  runSoonCallbacks(): number {
    const due = this.soonQueue;
    this.soonQueue = [];
    for (const fn of due) fn();
    return due.length;
  }

  get pendingSoon(): number {
    return this.soonQueue.length;
  }
}

/** Runs `work` with this process's clock (`Date.now`) `offsetMs` off, as on a machine whose clock is wrong. */
export async function withClockOff<T>(offsetMs: number, work: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = () => realNow() + offsetMs;
  try {
    return await work();
  } finally {
    Date.now = realNow;
  }
}
