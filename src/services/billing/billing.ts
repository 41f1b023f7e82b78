// The Billing group: the caller's metered usage, priced by the price table, in time buckets. One
// method per route; each resolves the window, reads the intervals that overlap it and shapes the
// records and metadata the hosted API answers with.
import {
  billingTime,
  bucketAfter,
  resolveBillingWindow,
  type BillingWindow,
  type BillingWindowInput,
} from '../../domain/billing-window.js';
import type { PriceTable } from '../../domain/price-table.js';
import type { UsageFamily, UsageInterval } from '../../domain/usage.js';
import type { UsageStore } from '../../store/usage-store.js';
import { addCents, amounts, sumIntoBuckets, type CentsCell, type ComponentOf } from './bucket-sums.js';

const COMPUTE: ComponentOf = (i) => ({ GPU: 'gpuAmount', CPU: 'cpuAmount', DISK: 'diskAmount', VOLUME: undefined })[i.meter];
/** A pod's disk amount is its container disk and its persistent volume together, as the hosted API reports it. */
const POD: ComponentOf = (i) => (i.meter === 'VOLUME' ? 'diskAmount' : COMPUTE(i));
const TIER: ComponentOf = (i) => (i.resource === 'HIGH_PERFORMANCE' ? 'highPerformanceAmount' : 'standardAmount');

const AGGREGATE_COMPONENTS = [
  'podGpuAmount',
  'podCpuAmount',
  'podDiskAmount',
  'serverlessGpuAmount',
  'serverlessCpuAmount',
  'serverlessDiskAmount',
  'serverlessFeeAmount',
  'storageStandardAmount',
  'storageHighPerformanceAmount',
  'endpointAmount',
  'clusterGpuAmount',
  'clusterDiskAmount',
  'clusterNetworkingAmount',
];
const AGGREGATE: ComponentOf = (i) => {
  if (i.family === 'NETWORK_VOLUME') return i.resource === 'HIGH_PERFORMANCE' ? 'storageHighPerformanceAmount' : 'storageStandardAmount';
  const prefix = i.family === 'POD' ? 'pod' : 'serverless';
  const component = i.family === 'POD' ? POD(i) : COMPUTE(i);
  return component && prefix + component[0]!.toUpperCase() + component.slice(1);
};

/** How one per-resource route names its id, and what it bills. */
interface ResourceRoute {
  family: UsageFamily;
  idField: 'podId' | 'serverlessId' | 'networkVolumeId';
  countField: 'uniquePodCount' | 'uniqueServerlessCount' | 'uniqueNetworkVolumeCount';
  components: string[];
  componentOf: ComponentOf;
}

const ROUTES = {
  pods: {
    family: 'POD',
    idField: 'podId',
    countField: 'uniquePodCount',
    components: ['gpuAmount', 'cpuAmount', 'diskAmount'],
    componentOf: POD,
  },
  serverless: {
    family: 'SERVERLESS',
    idField: 'serverlessId',
    countField: 'uniqueServerlessCount',
    // No platform fee is charged on top of worker time.
    components: ['gpuAmount', 'cpuAmount', 'diskAmount', 'feeAmount'],
    componentOf: COMPUTE,
  },
  networkVolumes: {
    family: 'NETWORK_VOLUME',
    idField: 'networkVolumeId',
    countField: 'uniqueNetworkVolumeCount',
    components: ['standardAmount', 'highPerformanceAmount'],
    componentOf: TIER,
  },
} satisfies Record<string, ResourceRoute>;

export type BillingQuery = BillingWindowInput & { id?: string };

/** A record: its bucket, the id it bills (per-resource routes) and its amount fields. */
export type BillingRecord = { startTime: string; endTime: string } & Record<string, number | string>;

export class BillingService {
  constructor(
    private readonly usage: UsageStore,
    private readonly prices: PriceTable,
    private readonly now: () => number = Date.now,
  ) {}

  pods(accountId: string, query: BillingQuery) {
    return this.perResource(ROUTES.pods, accountId, query);
  }

  serverless(accountId: string, query: BillingQuery) {
    return this.perResource(ROUTES.serverless, accountId, query);
  }

  networkVolumes(accountId: string, query: BillingQuery) {
    return this.perResource(ROUTES.networkVolumes, accountId, query);
  }

  /** Every family together, one record per bucket (a bucket without usage costs 0). */
  async aggregate(accountId: string, query: BillingWindowInput) {
    const window = resolveBillingWindow(query, this.now());
    const intervals = await this.usage.list({ accountId, fromMs: window.fromMs, toMs: window.toMs });
    return this.perBucket(window, intervals, AGGREGATE_COMPONENTS, AGGREGATE);
  }

  /** Hosted public endpoints: Gantry offers none, so every bucket is 0. */
  endpoints(query: BillingWindowInput) {
    return this.perBucket(resolveBillingWindow(query, this.now()), [], [], () => undefined);
  }

  /** Instant Clusters: Gantry runs none, so there are no records. */
  clusters(query: BillingQuery) {
    const window = resolveBillingWindow(query, this.now());
    const zero = { totalAmount: 0, gpuAmount: 0, diskAmount: 0, networkingAmount: 0 };
    return {
      records: [],
      metadata: { query: { ...echo(window), clusterId: query.id ?? null }, recordCount: 0, uniqueClusterCount: 0, totals: zero },
    };
  }

  private async perResource(route: ResourceRoute, accountId: string, query: BillingQuery) {
    const window = resolveBillingWindow(query, this.now());
    const intervals = await this.usage.list({
      accountId,
      family: route.family,
      fromMs: window.fromMs,
      toMs: window.toMs,
      ...(query.id !== undefined ? { ownerId: query.id } : {}),
    });
    const cells = sumIntoBuckets(intervals, window, this.prices, route.componentOf);
    return {
      records: cells.map((cell): BillingRecord => ({
        ...bucketRange(window, cell),
        [route.idField]: cell.ownerId,
        ...amounts(route.components, cell.cents),
      })),
      metadata: {
        query: { ...echo(window), [route.idField]: query.id ?? null },
        recordCount: cells.length,
        [route.countField]: new Set(cells.map((c) => c.ownerId)).size,
        totals: amounts(route.components, addCents(cells.map((c) => c.cents))),
      },
    };
  }

  private perBucket(window: BillingWindow, intervals: UsageInterval[], components: string[], componentOf: ComponentOf) {
    const cells = sumIntoBuckets(intervals, window, this.prices, componentOf, false);
    const byBucket = new Map<number, Map<string, bigint>[]>(window.buckets.map((bucket) => [bucket, []]));
    for (const cell of cells) byBucket.get(cell.bucket)!.push(cell.cents);
    const sums = new Map([...byBucket].map(([bucket, of]) => [bucket, addCents(of)]));
    const records = window.buckets.map((bucket): BillingRecord => ({
      ...bucketRange(window, { bucket }),
      ...amounts(components, sums.get(bucket)!),
    }));
    return {
      records,
      metadata: { query: echo(window), recordCount: records.length, totals: amounts(components, addCents([...sums.values()])) },
    };
  }
}

function echo(window: BillingWindow) {
  return { startTime: billingTime(window.fromMs), endTime: billingTime(window.toMs), bucketSize: window.bucketSize };
}

function bucketRange(window: BillingWindow, cell: Pick<CentsCell, 'bucket'>) {
  return { startTime: billingTime(cell.bucket), endTime: billingTime(bucketAfter(cell.bucket, window.bucketSize)) };
}
