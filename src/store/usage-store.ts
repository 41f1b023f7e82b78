// The usage part of the Store port: metered intervals, appended by the metering task and read
// by billing. Appends are idempotent and never overlap what a subject has recorded, so a replay
// or two replicas metering at once (a leader that has not noticed it lost the lease) cannot
// count time twice.
import type { UsageFamily, UsageInterval } from '../domain/usage.js';

export interface UsageQuery {
  accountId: string;
  /** Intervals overlapping [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  /** Every family when omitted. */
  family?: UsageFamily;
  ownerId?: string;
}

export interface UsageStore {
  /**
   * Records the intervals, in order. One that overlaps recorded time of its subject is skipped;
   * one that continues its subject's last interval with the same state and dimensions extends
   * that row instead of adding one (a steady subject is one row, not one per pass). Answers how
   * many were recorded.
   */
  append(intervals: readonly UsageInterval[]): Promise<number>;
  /** The end of each subject's last recorded interval; subjects without any are absent. */
  lastEnds(subjectIds: readonly string[]): Promise<Map<string, number>>;
  /** The matching intervals, whole (callers clip them to the window), by subject and start. */
  list(query: UsageQuery): Promise<UsageInterval[]>;
}

export interface UsageRow {
  subject_id: string;
  from_ms: number | string;
  to_ms: number | string;
  account_id: string;
  family: string;
  owner_id: string;
  meter: string;
  resource: string;
  quantity: number;
  state: string;
}

export function usageFromRow(row: UsageRow): UsageInterval {
  return {
    subjectId: row.subject_id,
    fromMs: Number(row.from_ms),
    toMs: Number(row.to_ms),
    accountId: row.account_id,
    family: row.family as UsageInterval['family'],
    ownerId: row.owner_id,
    meter: row.meter as UsageInterval['meter'],
    resource: row.resource,
    quantity: Number(row.quantity),
    state: row.state as UsageInterval['state'],
  };
}

/** The columns in insert order, and an interval's values for them. */
export const USAGE_COLUMNS = 'subject_id, from_ms, to_ms, account_id, family, owner_id, meter, resource, quantity, state';

export function usageValues(i: UsageInterval): unknown[] {
  return [i.subjectId, i.fromMs, i.toMs, i.accountId, i.family, i.ownerId, i.meter, i.resource, i.quantity, i.state];
}

/** Matches the row an interval continues: same subject, state and dimensions, ending where it starts. */
export const CONTINUES =
  'subject_id = ? AND to_ms = ? AND account_id = ? AND family = ? AND owner_id = ? AND meter = ? AND resource = ? AND quantity = ? AND state = ?';

export function continuation(i: UsageInterval): unknown[] {
  return [i.subjectId, i.fromMs, i.accountId, i.family, i.ownerId, i.meter, i.resource, i.quantity, i.state];
}
