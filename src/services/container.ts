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
import { WorkerDirectory } from './worker-directory.js';
import { WorkerRuntime } from '../runtime/worker-runtime.js';
import { ProcessProvider } from '../runtime/process-provider.js';

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

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
  /** Gantry's own workers; absent when workers are started by hand (--worker-provider none). */
  runtime: WorkerRuntime | undefined;
  workerDirectory: WorkerDirectory;
  /** Starts background work (sweeper, worker runtime); the server calls it once it listens. */
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
  const workerCredentials = new WorkerCredentialService(store);
  const runtime =
    config.workerProvider === 'process'
      ? new WorkerRuntime(store, new ProcessProvider({ workDir: config.workerWorkDir }), capacity, workers, workerCredentials, events, config, log)
      : undefined;
  const workerDirectory = new WorkerDirectory(workers, runtime, 3 * config.workerPingIntervalMs);
  const metrics = new GantryMetrics(store, (endpointId) => workerDirectory.counts(endpointId));
  const jobs = new JobService(store, events, workers, webhooks, config, metrics, (endpointId) => workerDirectory.counts(endpointId));
  const sweeper = new JobSweeper(store, jobs, events, config, log);
  const endpoints = new EndpointService(store, catalog, templates, config);
  if (runtime) endpoints.onChanged(() => runtime.runSoon());
  let started = false;
  return {
    config,
    store,
    apiKeys: new ApiKeyService(store),
    rateLimiter: new MemoryRateLimiter(config.rateLimits),
    catalog,
    capacity,
    templates,
    endpoints,
    events,
    workers,
    jobs,
    workerProtocol: new WorkerProtocolService(store, events, workers, jobs, config),
    workerCredentials,
    webhooks,
    sweeper,
    metrics,
    runtime,
    workerDirectory,
    start() {
      if (started) return;
      started = true;
      sweeper.start();
      runtime?.start();
    },
    async close() {
      await runtime?.stop();
      await sweeper.stop();
      await webhooks.close();
      await store.close();
    },
  };
}
