// Schemas of the Billing group: the query every route takes, and each route's records and
// metadata (the resolved window, counts and totals), as the hosted API shapes them.
import { Type, type TProperties } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { BUCKET_SIZES, MAX_BUCKETS } from '../../domain/billing-window.js';

const Time = (description: string) => Type.String({ format: 'date-time', description });
const Amount = (description: string) => Type.Number({ description: `${description}, USD rounded to the cent` });

const windowQuery = {
  startTime: Type.Optional(Time('Start (RFC 3339); snapped down to its bucket. Defaults to 30 days before endTime')),
  endTime: Type.Optional(Time('End (RFC 3339), exclusive; snapped up to the end of its bucket. Defaults to now')),
  bucketSize: Type.Optional(
    StringEnum(BUCKET_SIZES, { description: 'Bucket length (UTC calendar; weeks start on Monday)', default: 'day' }),
  ),
  lastN: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_BUCKETS,
      description: 'The last N buckets, ending with the current one; not with startTime/endTime',
    }),
  ),
};

export const BillingQuerystring = Type.Object(windowQuery);
export const PodBillingQuerystring = Type.Object({ ...windowQuery, podId: Type.Optional(Type.String({ minLength: 1 })) });
export const ServerlessBillingQuerystring = Type.Object({ ...windowQuery, serverlessId: Type.Optional(Type.String({ minLength: 1 })) });
export const NetworkVolumeBillingQuerystring = Type.Object({
  ...windowQuery,
  networkVolumeId: Type.Optional(Type.String({ minLength: 1 })),
});
export const ClusterBillingQuerystring = Type.Object({ ...windowQuery, clusterId: Type.Optional(Type.String({ minLength: 1 })) });

const range = { startTime: Time('Start, inclusive'), endTime: Time('End, exclusive') };
const resolvedQuery = { ...range, bucketSize: StringEnum(BUCKET_SIZES) };

function amountsOf(names: Record<string, string>): TProperties {
  return Object.fromEntries(Object.entries({ totalAmount: 'Sum of the components', ...names }).map(([name, text]) => [name, Amount(text)]));
}

/** A route's response: records with the id field (if any), metadata with the filter echo and count. */
function response(amounts: TProperties, id?: { field: string; count: string }) {
  const idField = id ? { [id.field]: Type.String() } : {};
  const filter = id ? { [id.field]: Type.Union([Type.String(), Type.Null()]) } : {};
  const count = id ? { [id.count]: Type.Integer({ description: 'Distinct ids the records span' }) } : {};
  return Type.Object({
    records: Type.Array(Type.Object({ ...range, ...idField, ...amounts })),
    metadata: Type.Object({
      query: Type.Object({ ...resolvedQuery, ...filter }),
      recordCount: Type.Integer(),
      ...count,
      totals: Type.Object(amounts),
    }),
  });
}

const compute = { gpuAmount: 'GPU time', cpuAmount: 'CPU time', diskAmount: 'Disk' };

export const ListBillingResponse = response(
  amountsOf({
    podGpuAmount: 'Pod GPU time',
    podCpuAmount: 'Pod CPU time',
    podDiskAmount: 'Pod container disk and persistent volumes',
    serverlessGpuAmount: 'Serverless GPU worker time',
    serverlessCpuAmount: 'Serverless CPU worker time',
    serverlessDiskAmount: 'Serverless container disk',
    serverlessFeeAmount: 'Serverless platform fee (none is charged)',
    storageStandardAmount: 'Standard network volumes',
    storageHighPerformanceAmount: 'High-performance network volumes',
    endpointAmount: 'Hosted public endpoints (none are offered)',
    clusterGpuAmount: 'Cluster GPU time (no clusters are offered)',
    clusterDiskAmount: 'Cluster disk',
    clusterNetworkingAmount: 'Cluster networking',
  }),
);
export const ListPodBillingResponse = response(
  amountsOf({ ...compute, diskAmount: 'Container disk while the pod runs, and its persistent volume (running or stopped price)' }),
  { field: 'podId', count: 'uniquePodCount' },
);
export const ListServerlessBillingResponse = response(amountsOf({ ...compute, feeAmount: 'Platform fee (none is charged)' }), {
  field: 'serverlessId',
  count: 'uniqueServerlessCount',
});
export const ListEndpointBillingResponse = response(amountsOf({}));
export const ListNetworkVolumeBillingResponse = response(
  amountsOf({ standardAmount: 'Standard storage', highPerformanceAmount: 'High-performance storage' }),
  { field: 'networkVolumeId', count: 'uniqueNetworkVolumeCount' },
);
export const ListClusterBillingResponse = response(
  amountsOf({ gpuAmount: 'GPU time', diskAmount: 'Disk', networkingAmount: 'Networking' }),
  {
    field: 'clusterId',
    count: 'uniqueClusterCount',
  },
);
