// gpuTypes: the catalog's GPU types under the legacy names (displayName, memoryInGb, securePrice...).
import type { GpuTypeEntry } from '../../domain/catalog.js';
import type { GraphQLContext } from './context.js';
import { ApiError } from '../../domain/errors.js';

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
    lowestPrice: ({ input }: { input?: { gpuCount?: number | null } | null }) => {
      const count = input?.gpuCount ?? 1;
      if (!Number.isInteger(count) || count < 1) {
        throw new ApiError(422, 'the input failed validation', [`gpuCount: must be at least 1, not ${count}`]);
      }
      return { gpuName: gpu.name, gpuTypeId: gpu.id, minimumBidPrice: null, uninterruptablePrice: lowestPrice(gpu, count) };
    },
  };
}

export const gpuTypeQueries = {
  /** Every GPU type, or those input.id / input.ids name (an unknown id gives none, as the SDK expects). */
  gpuTypes: ({ input }: { input?: GpuTypeFilter | null }, { services: { catalog } }: GraphQLContext) => {
    // A filter given, even an empty id, filters: get_gpu("") must find nothing, not every type.
    const filtered = (input?.id ?? null) !== null || (input?.ids ?? null) !== null;
    const wanted = [...(input?.id !== undefined && input.id !== null ? [input.id] : []), ...(input?.ids ?? [])];
    const gpus = filtered ? catalog.data.gpus.filter((gpu) => wanted.includes(gpu.id)) : catalog.data.gpus;
    return gpus.map(gpuTypeNode);
  },
};
