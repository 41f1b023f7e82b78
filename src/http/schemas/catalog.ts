// Schemas of the catalog: GPU types, CPU flavors, data centers.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

const Availability = StringEnum(['NONE', 'LOW', 'MEDIUM', 'HIGH']);
const DataCenterAvailability = Type.Object({ id: Type.String(), name: Type.String(), availability: Availability });

export const GpuType = Type.Object({
  id: Type.String({ description: 'GPU type id (what gpu.excludedTypes takes)' }),
  name: Type.String(),
  pool: Type.Union([Type.String(), Type.Null()], { description: 'Serverless pool id (what gpu.pools takes); null if in none' }),
  manufacturer: StringEnum(['NVIDIA', 'AMD', 'UNKNOWN']),
  memory: Type.Integer({ description: 'GB' }),
  secure: Type.Boolean(),
  community: Type.Boolean(),
  price: Type.Object({ secure: Type.Number(), community: Type.Number(), serverless: Type.Optional(Type.Number()) }),
  maxCount: Type.Object({ secure: Type.Integer(), community: Type.Integer() }),
  availability: Type.Optional(Availability),
  dataCenters: Type.Optional(Type.Array(DataCenterAvailability)),
  cudaVersions: Type.Optional(Type.Array(Type.Object({ version: Type.String(), available: Type.Boolean() }))),
});

export const CpuType = Type.Object({
  id: Type.String(),
  name: Type.String(),
  group: Type.String(),
  vcpu: Type.Object({ min: Type.Integer(), max: Type.Integer() }),
  ramGbPerVcpu: Type.Number(),
  price: Type.Object({ securePerVcpu: Type.Number(), serverlessPerVcpu: Type.Number() }),
  availability: Type.Optional(Availability),
  dataCenters: Type.Optional(Type.Array(DataCenterAvailability)),
});

export const DataCenter = Type.Object({
  id: Type.String(),
  name: Type.String(),
  region: Type.String(),
  globalNetwork: Type.Boolean(),
  networkVolumeTypes: Type.Array(Type.String()),
  compliance: Type.Array(Type.String()),
  gpuAvailability: Type.Optional(Type.Array(DataCenterAvailability)),
  cpuAvailability: Type.Optional(Type.Array(DataCenterAvailability)),
});

const text = Type.Optional(Type.String());
export const GpuQuery = Type.Object({
  include: text,
  product: text,
  count: text,
  cloud: text,
  countryCodes: text,
  cudaVersions: text,
  minCudaVersion: text,
});
export const CpuQuery = Type.Object({ include: text, product: text, vcpuCount: text });
export const DataCenterQuery = Type.Object({
  include: text,
  regions: text,
  networkVolumeTypes: text,
  compliance: text,
  globalNetwork: text,
});
export const TemplateSourceQuery = Type.Object({ source: Type.Optional(StringEnum(['official', 'verified', 'community'])) });
export const IdParams = Type.Object({ id: Type.String() });
