// The price table billing applies to usage intervals, built from the catalog: GPU types' and CPU
// flavors' hourly prices (serverless and pod), storage per GB-month, and the frozen-worker rate.
// Amounts are exact: an interval's cost is an integer count of AMOUNT_UNIT (a rational fraction
// of a dollar chosen so every price in micro-dollars per hour or per 720-hour month, every
// percentage and every millisecond divides evenly); only a report rounds, to cents.
import type { CatalogData } from './catalog.js';
import { POD_VOLUME, type UsageInterval } from './usage.js';

const MS_PER_HOUR = 3_600_000n;
const MICROS_PER_DOLLAR = 1_000_000n;
export const HOURS_PER_MONTH = 720n;
const PERCENT = 100n;
/** How many amount units make a dollar. */
export const UNITS_PER_DOLLAR = MS_PER_HOUR * MICROS_PER_DOLLAR * HOURS_PER_MONTH * PERCENT;

export const DEFAULT_BILLING_PRICES = {
  serverlessFrozenPercent: 0,
  containerDiskPerGbMonth: 0.1,
  podDiskPerGbMonth: 0.1,
  podVolumePerGbMonth: { RUNNING: 0.1, STOPPED: 0.2 },
  networkVolumePerGbMonth: { STANDARD: 0.07, HIGH_PERFORMANCE: 0.14 },
} as const;

/** A price: micro-dollars per unit and `per` (an hour or a month). */
interface Rate {
  micros: bigint;
  per: 'hour' | 'month';
}

/** Micro-dollars of a USD amount given with at most 6 decimals; anything else is a catalog error. */
export function toMicros(usd: number, what: string): bigint {
  const micros = Math.round(usd * 1_000_000);
  if (!Number.isFinite(usd) || usd < 0 || Math.abs(micros - usd * 1_000_000) > 1e-6) {
    throw new Error(`${what}: a price must be a non-negative USD amount with at most 6 decimals, not ${usd}`);
  }
  return BigInt(micros);
}

export class PriceTable {
  private readonly rates = new Map<string, Rate>();
  private readonly frozenPercent: bigint;

  constructor(catalog: CatalogData) {
    const billing = { ...DEFAULT_BILLING_PRICES, ...catalog.billing };
    const percent = billing.serverlessFrozenPercent;
    if (!Number.isInteger(percent) || percent < 0 || percent > 100) {
      throw new Error(`billing.serverlessFrozenPercent must be an integer from 0 to 100, not ${percent}`);
    }
    this.frozenPercent = BigInt(percent);
    const hourly = (usd: number, what: string): Rate => ({ micros: toMicros(usd, what), per: 'hour' });
    const monthly = (usd: number, what: string): Rate => ({ micros: toMicros(usd, what), per: 'month' });
    for (const gpu of catalog.gpus) {
      this.rates.set(key('SERVERLESS', 'GPU', gpu.id), hourly(gpu.price.serverless ?? 0, `GPU type ${gpu.id} serverless price`));
      this.rates.set(key('POD', 'GPU', gpu.id), hourly(gpu.price.secure, `GPU type ${gpu.id} secure price`));
    }
    for (const cpu of catalog.cpus) {
      this.rates.set(key('SERVERLESS', 'CPU', cpu.id), hourly(cpu.price.serverlessPerVcpu, `CPU flavor ${cpu.id} serverless price`));
      this.rates.set(key('POD', 'CPU', cpu.id), hourly(cpu.price.securePerVcpu, `CPU flavor ${cpu.id} secure price`));
    }
    this.rates.set(key('SERVERLESS', 'DISK', 'CONTAINER'), monthly(billing.containerDiskPerGbMonth, 'billing.containerDiskPerGbMonth'));
    this.rates.set(key('POD', 'DISK', 'CONTAINER'), monthly(billing.podDiskPerGbMonth, 'billing.podDiskPerGbMonth'));
    const podVolume = { ...DEFAULT_BILLING_PRICES.podVolumePerGbMonth, ...billing.podVolumePerGbMonth };
    this.rates.set(key('POD', 'VOLUME', POD_VOLUME), monthly(podVolume.RUNNING, 'billing.podVolumePerGbMonth.RUNNING'));
    // A stopped pod's volume has a price of its own, not a percentage of the running one.
    this.rates.set(key('POD', 'VOLUME', POD_VOLUME, 'FROZEN'), monthly(podVolume.STOPPED, 'billing.podVolumePerGbMonth.STOPPED'));
    const volumes = { ...DEFAULT_BILLING_PRICES.networkVolumePerGbMonth, ...billing.networkVolumePerGbMonth };
    for (const [tier, usd] of Object.entries(volumes)) {
      this.rates.set(key('NETWORK_VOLUME', 'VOLUME', tier), monthly(usd, `billing.networkVolumePerGbMonth.${tier}`));
    }
  }

  /**
   * The exact cost, in amount units, of the part of the interval inside [fromMs, toMs). A resource
   * the table does not price (a GPU type no longer in the catalog) costs nothing.
   */
  cost(interval: UsageInterval, fromMs = interval.fromMs, toMs = interval.toMs): bigint {
    const ms = BigInt(Math.max(0, Math.min(toMs, interval.toMs) - Math.max(fromMs, interval.fromMs)));
    const ofState = this.rates.get(key(interval.family, interval.meter, interval.resource, interval.state));
    const rate = ofState ?? this.rates.get(key(interval.family, interval.meter, interval.resource));
    if (!rate || ms === 0n) return 0n;
    const perMonth = rate.per === 'hour' ? HOURS_PER_MONTH : 1n;
    const frozen = !ofState && interval.state === 'FROZEN' && (interval.meter === 'GPU' || interval.meter === 'CPU');
    const percent = frozen ? this.frozenPercent : PERCENT;
    return ms * BigInt(interval.quantity) * rate.micros * perMonth * percent;
  }
}

/** A rate's key; `state` names a rate that applies in that state only. */
function key(family: string, meter: string, resource: string, state?: string): string {
  return state === undefined ? `${family}/${meter}/${resource}` : `${family}/${meter}/${resource}/${state}`;
}

/** Dollars rounded half up to the cent, as a number with at most 2 decimals. */
export function toDollars(units: bigint): number {
  const cents = (units * 100n + UNITS_PER_DOLLAR / 2n) / UNITS_PER_DOLLAR;
  return Number(cents) / 100;
}

/** Dollars rounded half up to the micro-dollar (the precision of the prices themselves): an hourly rate. */
export function toRateDollars(units: bigint): number {
  const micros = (units * MICROS_PER_DOLLAR + UNITS_PER_DOLLAR / 2n) / UNITS_PER_DOLLAR;
  return Number(micros) / 1_000_000;
}

/** Whole cents of an amount, rounded half up. */
export function toCents(units: bigint): bigint {
  return (units * 100n + UNITS_PER_DOLLAR / 2n) / UNITS_PER_DOLLAR;
}
