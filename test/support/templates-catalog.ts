// Two public templates the template tests add to the shipped catalog, one serverless and one for
// pods, so that what they check does not depend on shipped data.
import type { PublicTemplateEntry } from '../../src/domain/catalog.js';

export const CATALOG_SERVERLESS: PublicTemplateEntry = {
  id: 'tpltest-catalog-srv',
  name: 'Catalog serverless worker',
  image: 'acme/catalog-worker:3',
  source: 'official',
  serverless: true,
  category: 'NVIDIA',
  args: 'python -u handler.py',
  disk: 25,
  env: { MODEL: 'base' },
  allowedCudaVersions: ['12.4'],
  registry: 'catalog-secret-credential',
};
export const CATALOG_POD: PublicTemplateEntry = {
  id: 'tpltest-catalog-pod',
  name: 'Catalog pod template',
  image: 'acme/pod:1',
  source: 'verified',
  serverless: false,
  category: 'AMD',
};
