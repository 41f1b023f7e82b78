// Billing time buckets (UTC calendar: hours, days, ISO weeks from Monday, months, years) and the
// query window the billing routes resolve from startTime/endTime or lastN, aligned to them.
import { badRequest, unprocessable } from './errors.js';

export const BUCKET_SIZES = ['hour', 'day', 'week', 'month', 'year'] as const;
export type BucketSize = (typeof BUCKET_SIZES)[number];

/** The most buckets one query may span; a finer bucket over a longer range answers 400. */
export const MAX_BUCKETS = 10_000;
const DEFAULT_RANGE_MS = 30 * 86_400_000;

/** Date.UTC without its quirk: years 0-99 are those years, not 1900-1999. */
function utc(year: number, month: number, day: number, hour = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(year, month, day);
  at.setUTCHours(hour, 0, 0, 0);
  return at.getTime();
}

/** The start of the bucket holding t. */
export function bucketStart(t: number, size: BucketSize): number {
  const d = new Date(t);
  switch (size) {
    case 'hour':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
    case 'day':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'week': {
      const sinceMonday = (d.getUTCDay() + 6) % 7;
      return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - sinceMonday);
    }
    case 'month':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'year':
      return utc(d.getUTCFullYear(), 0, 1);
  }
}

/** The start of the bucket `n` buckets after the one starting at `start` (n may be negative). */
export function bucketAfter(start: number, size: BucketSize, n = 1): number {
  const d = new Date(start);
  switch (size) {
    case 'hour':
      return start + n * 3_600_000;
    case 'day':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n);
    case 'week':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 7 * n);
    case 'month':
      return utc(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
    case 'year':
      return utc(d.getUTCFullYear() + n, 0, 1);
  }
}

export interface BillingWindowInput {
  startTime?: string;
  endTime?: string;
  bucketSize?: BucketSize;
  lastN?: number;
}

export interface BillingWindow {
  fromMs: number;
  toMs: number;
  bucketSize: BucketSize;
  /** Bucket starts, in order; each bucket ends where the next starts, the last at toMs. */
  buckets: number[];
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function parseTime(value: string, name: string): number {
  const t = Date.parse(value);
  if (!RFC_3339.test(value) || Number.isNaN(t)) throw unprocessable(`${name} must be an RFC 3339 date-time, not "${value}"`);
  return t;
}

/** Resolves the query to whole buckets; malformed values answer 422, contradictory or oversized queries 400. */
export function resolveBillingWindow(input: BillingWindowInput, now: number): BillingWindow {
  const bucketSize = input.bucketSize ?? 'day';
  let fromMs: number;
  let toMs: number;
  if (input.lastN !== undefined) {
    if (input.startTime !== undefined || input.endTime !== undefined) {
      throw badRequest('lastN cannot be combined with startTime or endTime: give one or the other');
    }
    if (input.lastN > MAX_BUCKETS) throw unprocessable(`lastN may be at most ${MAX_BUCKETS}`);
    toMs = bucketAfter(bucketStart(now, bucketSize), bucketSize);
    fromMs = bucketAfter(toMs, bucketSize, -input.lastN);
  } else {
    const end = input.endTime === undefined ? now : parseTime(input.endTime, 'endTime');
    const start = input.startTime === undefined ? end - DEFAULT_RANGE_MS : parseTime(input.startTime, 'startTime');
    if (start >= end) throw badRequest('startTime must be before endTime');
    fromMs = bucketStart(start, bucketSize);
    const endBucket = bucketStart(end, bucketSize);
    toMs = endBucket === end ? end : bucketAfter(endBucket, bucketSize);
  }
  const buckets: number[] = [];
  for (let t = fromMs; t < toMs; t = bucketAfter(t, bucketSize)) {
    if (buckets.length === MAX_BUCKETS) throw badRequest(`the window spans more than ${MAX_BUCKETS} ${bucketSize} buckets`);
    buckets.push(t);
  }
  return { fromMs, toMs, bucketSize, buckets };
}

/** An instant as the billing routes write it: RFC 3339 UTC, without milliseconds when they are zero. */
export function billingTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
