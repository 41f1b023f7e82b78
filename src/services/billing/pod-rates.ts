// What a pod costs per hour, from the two pieces that bill it and nothing else: the intervals the
// meter cuts from the pod's row (metering/pod-source.ts) and the price table billing applies to
// them. So an hour at the rate a pod shows is billed exactly that rate (before billing rounds
// each component of a record to the cent), whatever parts the pod has and whatever they cost.
import { toRateDollars, type PriceTable } from '../../domain/price-table.js';
import { intervalsBetween } from '../../domain/usage.js';
import type { PodRecord } from '../../store/pod-store.js';
import { podMetered } from '../metering/pod-source.js';

const HOUR_MS = 3_600_000;

/** USD per hour, to the micro-dollar. */
export interface PodHourlyCost {
  /**
   * As billed in the pod's state now: while it runs, its GPUs or vCPUs, its container disk and
   * its volume at the running price; otherwise (stopped, exited, starting) its volume at the
   * stopped price alone; 0 once terminated.
   */
  current: number;
  /** While it runs, whatever its state now: what an hour of running it costs. */
  running: number;
}

export function podHourlyCost(pod: PodRecord, prices: PriceTable): PodHourlyCost {
  const current = steadyHourUnits(pod, prices);
  const running =
    pod.status === 'RUNNING' ? current : steadyHourUnits({ ...pod, status: 'RUNNING', lastStartedAt: pod.lastStatusChange }, prices);
  return { current: toRateDollars(current), running: toRateDollars(running) };
}

/**
 * The exact cost, in amount units, of an hour of the pod as its row stands: the intervals the
 * meter would record for the hour after the row's last change, priced.
 */
export function steadyHourUnits(pod: PodRecord, prices: PriceTable): bigint {
  const metered = podMetered(pod);
  const from = Math.max(Date.parse(pod.createdAt), ...metered.flatMap((m) => m.timeline.map((change) => change.at)));
  let units = 0n;
  for (const { subject, timeline } of metered) {
    for (const interval of intervalsBetween(subject, timeline, from, from + HOUR_MS)) units += prices.cost(interval);
  }
  return units;
}
