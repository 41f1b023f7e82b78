// Wires the services of one Gantry process from its configuration.
import { join } from 'node:path';
import type { GantryConfig } from '../config.js';
import type { Store } from '../store/store.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { ApiKeyService } from './api-keys.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { Catalog, loadCatalog } from '../catalog/catalog.js';
import { Capacity, loadCapacity } from '../catalog/capacity.js';
import { EndpointService } from './endpoints.js';
import { TemplateService } from './templates.js';

export interface Services {
  config: GantryConfig;
  store: Store;
  apiKeys: ApiKeyService;
  rateLimiter: RateLimiter;
  catalog: Catalog;
  capacity: Capacity;
  templates: TemplateService;
  endpoints: EndpointService;
  close(): Promise<void>;
}

export function databaseFile(config: GantryConfig): string {
  return join(config.dataDir, 'gantry.db');
}

export function createServices(config: GantryConfig, store: Store = new SqliteStore(databaseFile(config))): Services {
  const catalog = loadCatalog(config.catalogFile);
  const capacity = loadCapacity(config.capacityFile, catalog);
  const templates = new TemplateService(store, catalog);
  return {
    config,
    store,
    apiKeys: new ApiKeyService(store),
    rateLimiter: new MemoryRateLimiter(config.rateLimits),
    catalog,
    capacity,
    templates,
    endpoints: new EndpointService(store, catalog, templates, config),
    close: () => store.close(),
  };
}
