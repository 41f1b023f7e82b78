// The catalog: GPU types and their serverless pools, CPU flavors, data centers and public
// templates. Gantry ships a default file; an operator may replace it with their own.
import { readFileSync } from 'node:fs';
import { shippedFile } from '../paths.js';
import { Catalog, type CatalogData } from '../domain/catalog.js';
import { PriceTable } from '../domain/price-table.js';

export const DEFAULT_CATALOG_FILE = shippedFile('catalog', 'default-catalog.json');

export class CatalogError extends Error {}

/** Reads and checks a catalog file; a broken file stops the server at start. */
export function loadCatalog(file = DEFAULT_CATALOG_FILE): Catalog {
  let data: CatalogData;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as CatalogData;
  } catch (error) {
    throw new CatalogError(`cannot read catalog ${file}: ${(error as Error).message}`);
  }
  const problems = checkCatalog(data);
  if (problems.length > 0) throw new CatalogError(`catalog ${file} is invalid:\n  - ${problems.join('\n  - ')}`);
  return new Catalog(data);
}

function checkCatalog(data: CatalogData): string[] {
  const problems: string[] = [];
  for (const list of ['gpus', 'cpus', 'dataCenters', 'templates'] as const) {
    if (!Array.isArray(data?.[list])) problems.push(`${list} must be an array`);
  }
  if (problems.length > 0) return problems;
  const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);
  for (const id of duplicates(data.gpus.map((g) => g.id))) problems.push(`duplicate GPU type ${id}`);
  for (const id of duplicates(data.cpus.map((c) => c.id))) problems.push(`duplicate CPU flavor ${id}`);
  for (const id of duplicates(data.dataCenters.map((d) => d.id))) problems.push(`duplicate data center ${id}`);
  for (const id of duplicates(data.templates.map((t) => t.id))) problems.push(`duplicate template ${id}`);
  for (const g of data.gpus) {
    if (typeof g.id !== 'string' || g.id === '') problems.push('a GPU type has no id');
    if (!Array.isArray(g.cudaVersions) || g.cudaVersions.some((v) => !/^\d+\.\d+$/.test(v))) {
      problems.push(`GPU type ${g.id}: cudaVersions must be major.minor strings`);
    }
  }
  for (const c of data.cpus) {
    if (!(c.vcpu?.min >= 1 && c.vcpu.max >= c.vcpu.min)) problems.push(`CPU flavor ${c.id}: vcpu.min..max is invalid`);
    if (!(c.ramGbPerVcpu > 0)) problems.push(`CPU flavor ${c.id}: ramGbPerVcpu must be positive`);
  }
  problems.push(...unknownBillingKeys(data.billing));
  if (problems.length === 0) {
    try {
      new PriceTable(data);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}

const BILLING_KEYS: Record<string, readonly string[] | null> = {
  serverlessFrozenPercent: null,
  containerDiskPerGbMonth: null,
  podDiskPerGbMonth: null,
  podVolumePerGbMonth: ['RUNNING', 'STOPPED'],
  networkVolumePerGbMonth: ['STANDARD', 'HIGH_PERFORMANCE'],
};

/** A misspelt price would silently leave the default in place: every key must be one Gantry reads. */
function unknownBillingKeys(billing: unknown): string[] {
  if (billing === undefined) return [];
  if (typeof billing !== 'object' || billing === null || Array.isArray(billing)) return ['billing must be an object'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(billing)) {
    const inner = BILLING_KEYS[key];
    if (inner === undefined) problems.push(`billing.${key}: unknown; known: ${Object.keys(BILLING_KEYS).join(', ')}`);
    else if (inner !== null && typeof value === 'object' && value !== null) {
      for (const tier of Object.keys(value))
        if (!inner.includes(tier)) problems.push(`billing.${key}.${tier}: unknown; known: ${inner.join(', ')}`);
    }
  }
  return problems;
}
