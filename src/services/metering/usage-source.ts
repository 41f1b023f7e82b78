// A metered source: what the meter asks, on every pass, for the subjects it records. A source
// describes each subject (who pays, under which id, at which rate dimensions) and its timeline;
// the meter cuts the part after the subject's last recorded interval into intervals and appends
// them. A source backed by durable rows (volumes, pods) is read the same way on any replica, so
// a new leader continues exactly where the records end.
import type { UsageChange, UsageSubject } from '../../domain/usage.js';

export interface MeteredSubject {
  subject: UsageSubject;
  /**
   * Its states in time order, starting when it began to cost. It must cover the time since the
   * subject's last recorded interval; earlier changes may be left out once recorded.
   */
  timeline: UsageChange[];
}

export interface UsageSource {
  /** Names the source in logs. */
  readonly name: string;
  /** Every subject with time to record up to `now`: live ones, and ended ones not yet recorded to their end. */
  subjects(now: number): Promise<MeteredSubject[]>;
  /** Told, after a pass, up to when a subject is recorded; a source may then forget an ended subject. */
  recorded?(subjectId: string, untilMs: number): void;
}
