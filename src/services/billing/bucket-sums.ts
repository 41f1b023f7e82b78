// Sums priced usage into (owner, bucket, component) cells, or (bucket, component) ones, exactly,
// then rounds each cell to the cent. A record's total is the sum of its rounded components and the metadata totals the sum of
// the records, so every figure a client adds up matches the one it is given.
import type { BillingWindow } from '../../domain/billing-window.js';
import { toCents, type PriceTable } from '../../domain/price-table.js';
import type { UsageInterval } from '../../domain/usage.js';

/** Names the amount field an interval's cost goes to, or undefined when this report leaves it out. */
export type ComponentOf = (interval: UsageInterval) => string | undefined;

export interface CentsCell {
  ownerId: string;
  bucket: number;
  /** Whole cents by component. */
  cents: Map<string, bigint>;
}

/**
 * The cells with usage (even at no cost), ordered by bucket, then owner. `perOwner` false sums
 * every owner of a bucket into one cell (owner ''), for records that are whole buckets: rounded
 * once there, not once per owner and then added up.
 */
export function sumIntoBuckets(
  intervals: readonly UsageInterval[],
  window: BillingWindow,
  prices: PriceTable,
  componentOf: ComponentOf,
  perOwner = true,
): CentsCell[] {
  const exact = new Map<string, { ownerId: string; bucket: number; units: Map<string, bigint> }>();
  const ends = [...window.buckets.slice(1), window.toMs];
  for (const interval of intervals) {
    const component = componentOf(interval);
    if (component === undefined) continue;
    for (let index = firstBucket(window.buckets, interval.fromMs); index < window.buckets.length; index++) {
      const bucket = window.buckets[index]!;
      const end = ends[index]!;
      if (bucket >= interval.toMs) break;
      const ownerId = perOwner ? interval.ownerId : '';
      const cellKey = `${bucket}/${ownerId}`;
      let cell = exact.get(cellKey);
      if (!cell) {
        cell = { ownerId, bucket, units: new Map() };
        exact.set(cellKey, cell);
      }
      cell.units.set(component, (cell.units.get(component) ?? 0n) + prices.cost(interval, bucket, end));
    }
  }
  return [...exact.values()]
    .sort((a, b) => a.bucket - b.bucket || (a.ownerId < b.ownerId ? -1 : a.ownerId > b.ownerId ? 1 : 0))
    .map((cell) => ({
      ownerId: cell.ownerId,
      bucket: cell.bucket,
      cents: new Map([...cell.units].map(([c, units]) => [c, toCents(units)])),
    }));
}

/** The index of the bucket holding t (0 when t is before the first). */
function firstBucket(buckets: readonly number[], t: number): number {
  let low = 0;
  let high = buckets.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (buckets[mid]! <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The amount fields of a record: each component in dollars, and totalAmount their sum. */
export function amounts(components: readonly string[], cents: ReadonlyMap<string, bigint>): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0n;
  for (const component of components) {
    const value = cents.get(component) ?? 0n;
    total += value;
    out[component] = Number(value) / 100;
  }
  return { totalAmount: Number(total) / 100, ...out };
}

/** Adds cents cell-wise: the metadata totals of a set of records. */
export function addCents(cells: readonly ReadonlyMap<string, bigint>[]): Map<string, bigint> {
  const sum = new Map<string, bigint>();
  for (const cell of cells) for (const [component, value] of cell) sum.set(component, (sum.get(component) ?? 0n) + value);
  return sum;
}
