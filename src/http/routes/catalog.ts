// The catalog: GPU types, CPU flavors, data centers and public templates, with availability
// computed from this deployment's free capacity.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import type { CpuFlavorEntry, DataCenterEntry, GpuTypeEntry } from '../../domain/catalog.js';
import { cpuAvailability, dataCenterAvailability, gpuAvailability, type GpuFilter } from '../../catalog/availability.js';
import { notFound } from '../../domain/errors.js';
import { QueryCheck } from '../catalog-query.js';
import { problemResponses } from '../schemas/common.js';
import { isVcpuCount } from '../../domain/compute-rules.js';
import { CpuQuery, CpuType, DataCenter, DataCenterQuery, GpuQuery, GpuType, IdParams, TemplateSourceQuery } from '../schemas/catalog.js';
import { TemplateResponse } from '../schemas/templates.js';
import { templateView } from '../views/template-view.js';
import { templateSpecFromCatalog } from '../../domain/template-rules.js';

const tags = ['Catalog'];
const CUDA = /^\d+\.\d+$/;
const REGIONS = ['NORTH_AMERICA', 'SOUTH_AMERICA', 'EUROPE', 'ASIA', 'MIDDLE_EAST', 'AFRICA', 'OCEANIA', 'ANTARCTICA', 'UNKNOWN'];

interface GpuQueryValues {
  include?: string;
  product?: string;
  count?: string;
  cloud?: string;
  countryCodes?: string;
  cudaVersions?: string;
  minCudaVersion?: string;
}

/** Reads the GPU query; undefined means no availability was asked for. */
function gpuFilter(q: GpuQueryValues): { filter: GpuFilter | undefined; countries: string[] | undefined } {
  const check = new QueryCheck();
  const include = check.list('include', q.include, { values: ['AVAILABILITY'], maxItems: 1 });
  const product = check.list('product', q.product, { values: ['POD', 'CLUSTER', 'SERVERLESS'] });
  const count = check.value('count', q.count, { pattern: /^[1-9]\d*$/ });
  check.value('cloud', q.cloud, { values: ['SECURE', 'COMMUNITY'] });
  const countries = check.list('countryCodes', q.countryCodes, { pattern: /^[A-Z]{2}$/ });
  const cudaVersions = check.list('cudaVersions', q.cudaVersions, { pattern: CUDA });
  const minCuda = check.value('minCudaVersion', q.minCudaVersion, { pattern: /^\d+(\.\d+)?$/ });
  const asked = include !== undefined && include.length > 0;
  check.conflict(asked && product === undefined, 'product: is required with include=AVAILABILITY');
  for (const [name, value] of Object.entries({
    product,
    count,
    cloud: q.cloud,
    countryCodes: countries,
    cudaVersions,
    minCudaVersion: minCuda,
  })) {
    check.conflict(!asked && value !== undefined, `${name}: applies only with include=AVAILABILITY`);
  }
  check.conflict(cudaVersions !== undefined && minCuda !== undefined, 'cudaVersions: cannot be combined with minCudaVersion');
  check.done();
  if (!asked) return { filter: undefined, countries: undefined };
  return {
    filter: {
      count: Number(count ?? 1),
      cudaVersions: cudaVersions ?? [],
      minCudaVersion: minCuda ?? null,
      serverless: product!.includes('SERVERLESS'),
    },
    countries,
  };
}

export function catalogRoutes({ catalog, capacity, store }: Services): FastifyPluginAsync {
  const gpuView = (gpu: GpuTypeEntry, filter: GpuFilter | undefined, countries: string[] | undefined) => {
    const { cudaVersions: _static, ...base } = gpu;
    if (!filter) return base;
    // countryCodes scopes the stock itself: the level, the data centers and the CUDA versions.
    const dataCenterIds = countries && catalog.data.dataCenters.filter((dc) => countries.includes(dc.countryCode ?? '')).map((dc) => dc.id);
    return { ...base, ...gpuAvailability(gpu, capacity, catalog, { ...filter, ...(dataCenterIds ? { dataCenterIds } : {}) }) };
  };

  const cpuView = (flavor: CpuFlavorEntry, q: { include?: string; product?: string; vcpuCount?: string }) => {
    const check = new QueryCheck();
    const include = check.list('include', q.include, { values: ['AVAILABILITY'], maxItems: 1 });
    const product = check.list('product', q.product, { values: ['POD', 'SERVERLESS'] });
    const vcpuCount = check.value('vcpuCount', q.vcpuCount, {
      test: (raw) => /^\d+$/.test(raw) && isVcpuCount(Number(raw)),
      kind: 'a power of two from 2',
    });
    const asked = include !== undefined && include.length > 0;
    check.conflict(asked && product === undefined, 'product: is required with include=AVAILABILITY');
    check.conflict(!asked && product !== undefined, 'product: applies only with include=AVAILABILITY');
    check.conflict(!asked && vcpuCount !== undefined, 'vcpuCount: applies only with include=AVAILABILITY');
    check.done();
    if (!asked) return flavor;
    return {
      ...flavor,
      ...cpuAvailability(flavor, capacity, catalog, vcpuCount ? Number(vcpuCount) : null, product!.includes('SERVERLESS')),
    };
  };

  const dataCenterView = (dc: DataCenterEntry, include: string[]) => {
    const stock = dataCenterAvailability(dc.id, capacity, catalog);
    return {
      ...dc,
      ...(include.includes('GPU_AVAILABILITY') && stock.gpuAvailability.length > 0 ? { gpuAvailability: stock.gpuAvailability } : {}),
      ...(include.includes('CPU_AVAILABILITY') && stock.cpuAvailability.length > 0 ? { cpuAvailability: stock.cpuAvailability } : {}),
    };
  };
  const dataCenterInclude = (raw: string | undefined) => {
    const check = new QueryCheck();
    const include = check.list('include', raw, { values: ['GPU_AVAILABILITY', 'CPU_AVAILABILITY'] }) ?? [];
    return { check, include };
  };

  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/catalog/gpus',
      {
        schema: {
          tags,
          operationId: 'listGpuTypes',
          summary: 'GPU types, their serverless pools and prices',
          querystring: GpuQuery,
          response: { 200: Type.Object({ gpus: Type.Array(GpuType) }), ...problemResponses(400, 422) },
        },
      },
      async (request) => {
        const { filter, countries } = gpuFilter(request.query);
        let gpus = catalog.data.gpus.map((gpu) => gpuView(gpu, filter, countries));
        if (countries) gpus = gpus.filter((gpu) => 'dataCenters' in gpu && gpu.dataCenters !== undefined);
        return { gpus };
      },
    );

    app.get(
      '/v2/catalog/gpus/:id',
      {
        schema: {
          tags,
          operationId: 'getGpuType',
          summary: 'One GPU type',
          params: IdParams,
          querystring: GpuQuery,
          response: { 200: GpuType, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const gpu = catalog.gpuType(request.params.id);
        if (!gpu) throw notFound(`GPU type ${request.params.id} not found`);
        const { filter, countries } = gpuFilter(request.query);
        return gpuView(gpu, filter, countries);
      },
    );

    app.get(
      '/v2/catalog/cpus',
      {
        schema: {
          tags,
          operationId: 'listCpuTypes',
          summary: 'CPU flavors',
          querystring: CpuQuery,
          response: { 200: Type.Object({ cpus: Type.Array(CpuType) }), ...problemResponses(400, 422) },
        },
      },
      async (request) => ({ cpus: catalog.data.cpus.map((flavor) => cpuView(flavor, request.query)) }),
    );

    app.get(
      '/v2/catalog/cpus/:id',
      {
        schema: {
          tags,
          operationId: 'getCpuType',
          summary: 'One CPU flavor',
          params: IdParams,
          querystring: CpuQuery,
          response: { 200: CpuType, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const flavor = catalog.cpuFlavor(request.params.id);
        if (!flavor) throw notFound(`CPU flavor ${request.params.id} not found`);
        return cpuView(flavor, request.query);
      },
    );

    app.get(
      '/v2/catalog/datacenters',
      {
        schema: {
          tags,
          operationId: 'listDataCenters',
          summary: 'Data centers, filtered',
          querystring: DataCenterQuery,
          response: { 200: Type.Object({ dataCenters: Type.Array(DataCenter) }), ...problemResponses(422) },
        },
      },
      async (request) => {
        const q = request.query;
        const { check, include } = dataCenterInclude(q.include);
        const regions = check.list('regions', q.regions, { values: REGIONS });
        const volumes = check.list('networkVolumeTypes', q.networkVolumeTypes, { values: ['STANDARD', 'HIGH_PERFORMANCE'] });
        const compliance = check.list('compliance', q.compliance, { pattern: /^[A-Z0-9_]+$/ });
        const global = check.value('globalNetwork', q.globalNetwork, { values: ['true', 'false'] });
        check.done();
        const dataCenters = catalog.data.dataCenters.filter(
          (dc) =>
            (!regions || regions.includes(dc.region)) &&
            (!volumes || volumes.every((v) => dc.networkVolumeTypes.includes(v))) &&
            (!compliance || compliance.every((c) => dc.compliance.includes(c))) &&
            (global === undefined || dc.globalNetwork === (global === 'true')),
        );
        return { dataCenters: dataCenters.map((dc) => dataCenterView(dc, include)) };
      },
    );

    app.get(
      '/v2/catalog/datacenters/:id',
      {
        schema: {
          tags,
          operationId: 'getDataCenter',
          summary: 'One data center',
          params: IdParams,
          querystring: Type.Object({ include: Type.Optional(Type.String()) }),
          response: { 200: DataCenter, ...problemResponses(404, 422) },
        },
      },
      async (request) => {
        const dc = catalog.dataCenter(request.params.id);
        if (!dc) throw notFound(`data center ${request.params.id} not found`);
        const { check, include } = dataCenterInclude(request.query.include);
        check.done();
        return dataCenterView(dc, include);
      },
    );

    app.get(
      '/v2/catalog/templates',
      {
        schema: {
          tags,
          operationId: 'listPublicTemplates',
          summary: 'Public templates: official, verified or shared by other accounts',
          querystring: TemplateSourceQuery,
          response: { 200: Type.Object({ templates: Type.Array(TemplateResponse) }), ...problemResponses(422) },
        },
      },
      async (request) => {
        const source = request.query.source ?? 'official';
        if (source === 'community') {
          const shared = await store.listSharedTemplates(100);
          // Other accounts' shared templates: their registry credentials are never shown.
          return { templates: shared.map((record) => templateView({ id: record.id, spec: record.spec, owned: false })) };
        }
        const official = catalog.data.templates.filter((t) => t.source === source).slice(0, 100);
        return { templates: official.map((t) => templateView({ id: t.id, spec: templateSpecFromCatalog(t), owned: false })) };
      },
    );
  };
}
