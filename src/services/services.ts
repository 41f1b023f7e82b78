// The bundle of one process's services, as the HTTP edge and the server use them. It is built
// by the composition root (src/compose.ts); this file only names its parts.
import type { GantryConfig } from '../config.js';
import type { Store } from '../store/store.js';
import type { ApiKeyService } from './api-keys.js';
import type { RateLimiter } from '../cluster/rate-limiter.js';
import type { Catalog } from '../domain/catalog.js';
import type { Capacity } from '../catalog/capacity.js';
import type { EndpointService } from './endpoints.js';
import type { TemplateService } from './templates.js';
import type { RegistryAuthService } from './registry-auths.js';
import type { AccountSecretService } from './account-secrets.js';
import type { SshKeyService } from './ssh-keys.js';
import type { Secrets } from './secrets/secrets.js';
import type { NetworkVolumeService } from './network-volumes.js';
import type { JobEvents } from './waitlist.js';
import type { WorkerRegistry } from '../runtime/worker-registry.js';
import type { JobService } from './jobs.js';
import type { KeyedSubmits } from './keyed-submits.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { WebhookSecretService } from './webhook-secrets.js';
import type { WorkerProtocolService } from './worker-protocol.js';
import type { JobSweeper } from './job-sweeper.js';
import type { WorkerCredentialService } from './worker-credentials.js';
import type { GantryMetrics } from './metrics.js';
import type { WorkerDirectory } from './worker-directory.js';
import type { WorkerRuntime } from '../runtime/worker-runtime.js';
import type { Cluster } from '../cluster/cluster.js';
import type { BalancerPool } from '../runtime/balancer-pool.js';
import type { PodService } from './pods.js';
import type { Meter } from './metering/meter.js';
import type { AccountKeyService } from './account-keys.js';
import type { WorkerSampler } from './worker-sampler.js';
import type { BillingService } from './billing/billing.js';

export interface Services {
  config: GantryConfig;
  store: Store;
  apiKeys: ApiKeyService;
  /** The account's API keys, as the REST API manages them. */
  accountKeys: AccountKeyService;
  rateLimiter: RateLimiter;
  catalog: Catalog;
  capacity: Capacity;
  templates: TemplateService;
  /** Container registry credentials; the runtime pulls with them. */
  registryAuths: RegistryAuthService;
  /** Per-account secrets env values reference; the runtime resolves them when a worker starts. */
  accountSecrets: AccountSecretService;
  /** The SSH public keys of each account. */
  sshKeys: SshKeyService;
  /** Seals and opens stored secrets with the deployment's key. */
  secrets: Secrets;
  networkVolumes: NetworkVolumeService;
  /** Records usage intervals on the leader (metering/). */
  meter: Meter;
  /** Records endpoints' workers by state on the leader, for the series route. */
  workerSampler: WorkerSampler;
  /** The Billing group: metered usage, priced. */
  billing: BillingService;
  endpoints: EndpointService;
  events: JobEvents;
  workers: WorkerRegistry;
  jobs: JobService;
  /** Submits sent with an Idempotency-Key. */
  keyedSubmits: KeyedSubmits;
  workerProtocol: WorkerProtocolService;
  workerCredentials: WorkerCredentialService;
  webhooks: WebhookOutbox;
  /** Each endpoint's webhook signing secret, for its owner. */
  webhookSecrets: WebhookSecretService;
  sweeper: JobSweeper;
  metrics: GantryMetrics;
  /** Gantry's own workers; absent when workers are started by hand (--worker-provider none). */
  runtime: WorkerRuntime | undefined;
  workerDirectory: WorkerDirectory;
  cluster: Cluster;
  /** Load-balancing workers: health, load and held requests. */
  balancer: BalancerPool;
  /** Pods: long-running containers (the Docker provider only; 501 elsewhere). */
  pods: PodService;
  /** Reads the cluster's clock; the server calls it before it listens, so the first request is timed by the database's clock (decision 47). */
  prepare(): Promise<void>;
  /** Joins the cluster and starts background work (the leader's sweeper and worker runtime); the server calls it once it listens. */
  start(): Promise<void>;
  /** Stops this process's workers, each within --worker-stop-grace-ms; the first step of a shutdown. */
  stopWorkers(): Promise<void>;
  /** Kills this process's workers without grace, for a process that exits right now. */
  killWorkersNow(): Promise<void>;
  close(): Promise<void>;
}
