// gpuTypes: the catalog's GPU types under the legacy names (displayName, memoryInGb, securePrice...).
import type { GpuTypeEntry } from '../../domain/catalog.js';
import type { GraphQLContext } from './context.js';

interface GpuTypeFilter {
  id?: string | null;
  ids?: string[] | null;
}

/** The lowest on-demand price per GPU among the clouds that rent `count` of this type at once. */
function lowestPrice(gpu: GpuTypeEntry, count: number): number | null {
  const prices = [
    ...(gpu.secure && count <= gpu.maxCount.secure ? [gpu.price.secure] : []),
    ...(gpu.community && count <= gpu.maxCount.community ? [gpu.price.community] : []),
  ];
  return prices.length > 0 ? Math.min(...prices) : null;
}

function gpuTypeNode(gpu: GpuTypeEntry) {
  return {
    id: gpu.id,
    displayName: gpu.name,
    manufacturer: gpu.manufacturer,
    memoryInGb: gpu.memory,
    cudaCores: null,
    secureCloud: gpu.secure,
    communityCloud: gpu.community,
    securePrice: gpu.secure ? gpu.price.secure : null,
    communityPrice: gpu.community ? gpu.price.community : null,
    oneWeekPrice: null,
    oneMonthPrice: null,
    threeMonthPrice: null,
    secureSpotPrice: null,
    communitySpotPrice: null,
    maxGpuCount: Math.max(gpu.maxCount.secure, gpu.maxCount.community),
    maxGpuCountSecureCloud: gpu.maxCount.secure,
    maxGpuCountCommunityCloud: gpu.maxCount.community,
    lowestPrice: ({ input }: { input?: { gpuCount?: number | null } | null }) => ({
      gpuName: gpu.name,
      gpuTypeId: gpu.id,
      minimumBidPrice: null,
      uninterruptablePrice: lowestPrice(gpu, input?.gpuCount ?? 1),
    }),
  };
}

export const gpuTypeQueries = {
  /** Every GPU type, or those input.id / input.ids name (an unknown id gives none, as the SDK expects). */
  gpuTypes: ({ input }: { input?: GpuTypeFilter | null }, { services: { catalog } }: GraphQLContext) => {
    const wanted = [...(input?.id ? [input.id] : []), ...(input?.ids ?? [])];
    const gpus = wanted.length > 0 ? catalog.data.gpus.filter((gpu) => wanted.includes(gpu.id)) : catalog.data.gpus;
    return gpus.map(gpuTypeNode);
  },
};
