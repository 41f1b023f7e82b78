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
import { JobEvents } from './waitlist.js';
import { WorkerRegistry } from './worker-registry.js';
import { JobService } from './jobs.js';
import { WebhookDispatcher } from './webhooks.js';
import { WorkerProtocolService } from './worker-protocol.js';
import { JobSweeper } from './job-sweeper.js';
import { WorkerCredentialService } from './worker-credentials.js';
import { GantryMetrics } from './metrics.js';

export interface Logger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: Logger = { warn: () => undefined, error: () => undefined };

export interface Services {
  config: GantryConfig;
  store: Store;
  apiKeys: ApiKeyService;
  rateLimiter: RateLimiter;
  catalog: Catalog;
  capacity: Capacity;
  templates: TemplateService;
  endpoints: EndpointService;
  events: JobEvents;
  workers: WorkerRegistry;
  jobs: JobService;
  workerProtocol: WorkerProtocolService;
  workerCredentials: WorkerCredentialService;
  webhooks: WebhookDispatcher;
  sweeper: JobSweeper;
  metrics: GantryMetrics;
  /** Starts background work (the sweeper); the server calls it once it listens. */
  start(): void;
  close(): Promise<void>;
}

export function databaseFile(config: GantryConfig): string {
  return join(config.dataDir, 'gantry.db');
}

export function createServices(
  config: GantryConfig,
  store: Store = new SqliteStore(databaseFile(config)),
  log: Logger = silentLogger,
): Services {
  const catalog = loadCatalog(config.catalogFile);
  const capacity = loadCapacity(config.capacityFile, catalog);
  const templates = new TemplateService(store, catalog);
  const events = new JobEvents();
  // A worker is counted while it long-polls, and for three ping periods after it was last heard from.
  const workers = new WorkerRegistry(3 * config.workerPingIntervalMs);
  const webhooks = new WebhookDispatcher({ allowedCidrs: config.webhookAllowCidrs, log });
  const metrics = new GantryMetrics(store, (endpointId) => workers.counts(endpointId, Date.now()));
  const jobs = new JobService(store, events, workers, webhooks, config, metrics);
  const sweeper = new JobSweeper(store, jobs, events, config, log);
  let started = false;
  return {
    config,
    store,
    apiKeys: new ApiKeyService(store),
    rateLimiter: new MemoryRateLimiter(config.rateLimits),
    catalog,
    capacity,
    templates,
    endpoints: new EndpointService(store, catalog, templates, config),
    events,
    workers,
    jobs,
    workerProtocol: new WorkerProtocolService(store, events, workers, jobs, config),
    workerCredentials: new WorkerCredentialService(store),
    webhooks,
    sweeper,
    metrics,
    start() {
      if (started) return;
      started = true;
      sweeper.start();
    },
    async close() {
      await sweeper.stop();
      await webhooks.close();
      await store.close();
    },
  };
}
