// The metering task: on the leader, every --metering-interval-ms (and at once when a source asks,
// e.g. a worker ended), it records every subject's usage from the end of its last recorded
// interval up to now. Starting from the recorded end makes a new leader continue exactly where
// records stop; the store's unique (subject, start) and overlap check make a replay, or a former
// leader still writing, record nothing twice.
import { PeriodicTask, type Scheduler } from '../../domain/periodic-task.js';
import { intervalsBetween, type UsageInterval } from '../../domain/usage.js';
import type { Logger } from '../../domain/logger.js';
import type { UsageStore } from '../../store/usage-store.js';
import type { MeteredSubject, UsageSource } from './usage-source.js';
import { storeErrorFields } from '../../store/unavailable.js';

export interface MeterOptions {
  store: UsageStore;
  sources: UsageSource[];
  everyMs: number;
  log: Logger;
  now?: () => number;
  scheduler?: Scheduler;
}

export class Meter {
  private readonly task: PeriodicTask;
  private readonly now: () => number;
  /** Passes and settles of this process run one at a time, so a settle is never skipped as overlapping a pass's interval. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: MeterOptions) {
    this.now = options.now ?? Date.now;
    this.task = new PeriodicTask({
      run: () => this.pass(),
      everyMs: options.everyMs,
      onError: (err) => options.log.warn(storeErrorFields(err), 'metering pass failed; the next one records the time since'),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  }

  start(): void {
    this.task.start({ runNow: true });
  }

  /** Records up to now once more (the time up to a leader's stepping down), then stops. */
  async stop(): Promise<void> {
    if (this.task.running) await this.task.runNow();
    await this.task.stop();
  }

  /** A pass soon: a transition to record without waiting for the next interval. */
  runSoon(): void {
    this.task.runSoon();
  }

  /** One pass now (or right after the one under way). */
  runNow(): Promise<void> {
    return this.task.runNow();
  }

  /**
   * Records subjects up to `at` now, from any replica: a volume about to be resized or deleted
   * is recorded at its old size up to that moment; a pod about to start again, to its last stop.
   */
  async settle(metered: MeteredSubject | readonly MeteredSubject[], at: number): Promise<void> {
    await this.inTurn(() => this.record(Array.isArray(metered) ? metered : [metered as MeteredSubject], at));
  }

  private pass(): Promise<void> {
    return this.inTurn(async () => {
      const now = this.now();
      for (const source of this.options.sources) {
        const subjects = await source.subjects(now);
        const recorded = await this.record(subjects, now);
        for (const [subjectId, until] of recorded) source.recorded?.(subjectId, until);
      }
    });
  }

  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const next = this.turn.catch(() => undefined).then(run);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /** Appends each subject's intervals after its last recorded end; answers how far each is recorded. */
  private async record(subjects: MeteredSubject[], until: number): Promise<Map<string, number>> {
    const lastEnds = await this.options.store.lastEnds(subjects.map((s) => s.subject.subjectId));
    const intervals: UsageInterval[] = [];
    const recorded = new Map<string, number>();
    for (const { subject, timeline } of subjects) {
      const from = lastEnds.get(subject.subjectId) ?? timeline[0]?.at;
      if (from === undefined) continue;
      const cut = intervalsBetween(subject, timeline, from, until);
      intervals.push(...cut);
      recorded.set(subject.subjectId, cut.at(-1)?.toMs ?? from);
    }
    await this.options.store.append(intervals);
    return recorded;
  }
}
