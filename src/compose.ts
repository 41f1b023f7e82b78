// The composition root: the one place that knows every layer and wires the services of one
// Gantry process from its configuration. server.ts, the CLI and the benchmarks build through it.
import type { GantryConfig } from './config.js';
import type { Store } from './store/store.js';
import { ApiKeyService } from './services/api-keys.js';
import { loadCatalog } from './catalog/catalog.js';
import { loadCapacity } from './catalog/capacity.js';
import { EndpointService } from './services/endpoints.js';
import { TemplateService } from './services/templates.js';
import { RegistryAuthService } from './services/registry-auths.js';
import { AccountSecretService } from './services/account-secrets.js';
import { Secrets } from './services/secrets/secrets.js';
import { SshKeyService } from './services/ssh-keys.js';
import type { RegistryLogins } from './runtime/ports.js';
import { NetworkVolumeService } from './services/network-volumes.js';
import { offerVolumesWhereWorkersRun } from './catalog/volume-offer.js';
import { VolumeDirectories } from './runtime/volumes/volume-directories.js';
import { VolumeMounts } from './runtime/volumes/volume-mounts.js';
import { JobEvents } from './services/waitlist.js';
import { WorkerRegistry } from './runtime/worker-registry.js';
import { JobService } from './services/jobs.js';
import { KeyedSubmits } from './services/keyed-submits.js';
import { WebhookSender } from './services/webhooks.js';
import { WebhookOutbox } from './services/webhook-outbox.js';
import { WebhookSecretService } from './services/webhook-secrets.js';
import { WorkerProtocolService } from './services/worker-protocol.js';
import { JobSweeper } from './services/job-sweeper.js';
import { PurgedJobDeleter } from './services/purged-jobs.js';
import { WorkerCredentialService } from './services/worker-credentials.js';
import { GantryMetrics } from './services/metrics.js';
import { WorkerDirectory } from './services/worker-directory.js';
import { WorkerRuntime } from './runtime/worker-runtime.js';
import { ProcessProvider } from './runtime/process-provider.js';
import { QueueWorkers } from './runtime/kinds/queue-workers.js';
import { HttpWorkers } from './runtime/kinds/http-workers.js';
import { DockerProvider } from './runtime/docker/docker-provider.js';
import { dockerInstanceId } from './runtime/docker/instance-id.js';
import type { Provider } from './runtime/provider.js';
import { randomId } from './domain/ids.js';
import type { Clock } from './domain/clock.js';
import { SingleProcessCluster, type Cluster } from './cluster/cluster.js';
import { PostgresCluster } from './cluster/postgres-cluster.js';
import { PostgresStore } from './store/postgres/postgres-store.js';
import { BalancerPool } from './runtime/balancer-pool.js';
import { silentLogger, type Logger } from './domain/logger.js';
import type { Services } from './services/services.js';
import { PodService } from './services/pods.js';
import { PodLauncher } from './services/pod-launcher.js';
import { join } from 'node:path';
import { PriceTable } from './domain/price-table.js';
import { BillingService } from './services/billing/billing.js';
import { Meter } from './services/metering/meter.js';
import { WorkerSampler } from './services/worker-sampler.js';
import { AccountKeyService } from './services/account-keys.js';
import { WorkerUsageSource } from './services/metering/worker-source.js';
import { VolumeUsageSource, volumeMetered } from './services/metering/volume-source.js';
import { PodUsageSource, podMetered } from './services/metering/pod-source.js';

export type { Services };

export function createServices(config: GantryConfig, store: Store, log: Logger = silentLogger): Services {
  const listedCatalog = loadCatalog(config.catalogFile);
  const capacity = loadCapacity(config.capacityFile, listedCatalog);
  // Volumes are directories the workers here mount: offered where this deployment runs workers.
  const catalog = offerVolumesWhereWorkersRun(listedCatalog, capacity);
  // One price table: billing prices usage by it, and pods show their hourly cost from it.
  const prices = new PriceTable(listedCatalog.data);
  const volumeDirectories = new VolumeDirectories(config.volumeRoot);
  // Replicas sharing PostgreSQL must share the key too; one made in a data directory would differ on each.
  const secrets = new Secrets({ secretKey: config.secretKey, dataDir: config.dataDir, shared: store instanceof PostgresStore });
  const replicaId = `replica-${randomId(10)}`;
  const cluster: Cluster =
    store instanceof PostgresStore
      ? new PostgresCluster(replicaId, store, config, log.child({ component: 'cluster' }))
      : new SingleProcessCluster(replicaId, config.rateLimits);
  const registryAuths = new RegistryAuthService(store, secrets, cluster.now);
  const accountSecrets = new AccountSecretService(store, secrets, cluster.now);
  const templates = new TemplateService(store, catalog, registryAuths, accountSecrets, cluster.now);
  const events = new JobEvents(cluster.bus, config.eventFallbackMs);
  // A worker is counted while it long-polls, and for three ping periods after it was last heard from.
  const workers = new WorkerRegistry(3 * config.workerPingIntervalMs, config.maxWorkersPerEndpoint, cluster.now);
  const webhookSecrets = new WebhookSecretService(store, secrets);
  const webhooks = new WebhookOutbox(
    store.jobs,
    new WebhookSender({ allowedCidrs: config.webhookAllowCidrs }),
    webhookSecrets,
    undefined,
    log.child({ component: 'webhooks' }),
    cluster.now,
  );
  const workerCredentials = new WorkerCredentialService(store, cluster.now);
  const balancer = new BalancerPool({ healthIntervalMs: config.lbHealthIntervalMs });
  const provider = workerProvider(config, replicaId, registryAuths, log, cluster.now);
  const runtime = provider
    ? new WorkerRuntime({
        store,
        provider,
        capacity,
        volumes: new VolumeMounts(store, volumeDirectories),
        kinds: {
          QUEUE: new QueueWorkers({
            store,
            registry: workers,
            credentials: workerCredentials,
            signals: events,
            secrets: accountSecrets,
            config,
            now: cluster.now,
            jobFinished: async (jobId) => {
              const job = await store.jobs.getState(jobId);
              if (job) jobs.finished(job);
            },
          }),
          LOAD_BALANCER: new HttpWorkers(balancer, config, accountSecrets),
        },
        config,
        log: log.child({ component: 'runtime' }),
        clock: cluster.now,
      })
    : undefined;
  // Metering runs on the leader, beside the runtime whose workers it records.
  const workerUsage = new WorkerUsageSource(() => meter.runSoon());
  const meter: Meter = new Meter({
    store: store.usage,
    sources: [workerUsage, new VolumeUsageSource(store), new PodUsageSource(store)],
    everyMs: config.meteringIntervalMs,
    log: log.child({ component: 'metering' }),
    now: cluster.now,
  });
  runtime?.usage.listen(workerUsage.observe);
  const workerDirectory = new WorkerDirectory(workers, runtime, 3 * config.workerPingIntervalMs, cluster.peers, cluster.now);
  const workerSampler = new WorkerSampler({
    store,
    counts: (endpointId) => workerDirectory.counts(endpointId),
    everyMs: config.workerSampleIntervalMs,
    log: log.child({ component: 'worker-samples' }),
    now: cluster.now,
  });
  const metrics = new GantryMetrics(
    store,
    (endpointId) => workerDirectory.counts(endpointId),
    (endpointId) => balancer.demand(endpointId),
  );
  const purgedRows = new PurgedJobDeleter(store, log.child({ component: 'purge' }));
  const jobs = new JobService({
    store,
    events,
    workers,
    webhooks,
    timings: config,
    log: log.child({ component: 'jobs' }),
    observer: metrics,
    countWorkers: (endpointId) => workerDirectory.counts(endpointId),
    purgedRows,
    now: cluster.now,
  });
  const sweeper = new JobSweeper(store, jobs, events, config, log.child({ component: 'sweeper' }), cluster.now);
  const endpoints = new EndpointService(store, catalog, templates, registryAuths, accountSecrets, config, webhookSecrets, cluster.now);
  // Endpoint changes reach the leader's autoscaler whichever replica made them.
  endpoints.onChanged((endpointId) => events.endpointChanged(endpointId));
  if (runtime) events.onEndpointChanged(() => runtime.runSoon());
  const sshKeys = new SshKeyService(store, cluster.now);
  const pods = new PodService({
    store,
    catalog,
    capacity,
    engine: provider instanceof DockerProvider ? provider.pods : undefined,
    providerName: config.workerProvider,
    // Each pod's persistent volume is a directory of its own under the data directory.
    launcher: new PodLauncher(join(config.dataDir, 'pods'), volumeDirectories, accountSecrets, sshKeys, registryAuths),
    registries: registryAuths,
    secrets: accountSecrets,
    templates,
    prices,
    stopGraceMs: config.workerStopGraceMs,
    log: log.child({ component: 'pods' }),
    settle: (pod, at) => meter.settle(podMetered(pod), at),
    runEnded: () => meter.runSoon(),
    now: cluster.now,
  });
  const apiKeys = new ApiKeyService(store, cluster.now);
  let started: Promise<void> | undefined;
  return {
    config,
    store,
    apiKeys,
    accountKeys: new AccountKeyService(apiKeys, store),
    rateLimiter: cluster.rateLimiter,
    catalog,
    capacity,
    templates,
    registryAuths,
    accountSecrets,
    sshKeys,
    secrets,
    networkVolumes: new NetworkVolumeService(
      store,
      catalog,
      volumeDirectories,
      (volume, at) => meter.settle(volumeMetered(volume), at),
      cluster.now,
    ),
    meter,
    workerSampler,
    billing: new BillingService(store.usage, prices, cluster.now),
    endpoints,
    events,
    workers,
    jobs,
    keyedSubmits: new KeyedSubmits(store, jobs),
    workerProtocol: new WorkerProtocolService(store, events, workers, jobs, config, cluster.now),
    workerCredentials,
    webhooks,
    webhookSecrets,
    sweeper,
    metrics,
    runtime,
    workerDirectory,
    cluster,
    balancer,
    pods,
    prepare: () => cluster.syncClock(),
    start() {
      started ??= (async () => {
        if (secrets.unavailable)
          log.error({ reason: secrets.unavailable }, 'registry credentials and secrets cannot be stored or used until --secret-key is set');
        // Only the leader sweeps and scales; a replica that gains or loses leadership starts or stops them.
        cluster.leadership.onChange((leader) => {
          if (leader) {
            sweeper.start();
            runtime?.start();
            meter.start();
            workerSampler.start();
            // Pods' containers outlive a restart and a change of leader: adopted, and rows of those gone settled.
            void pods.recover().catch((err: unknown) => log.error({ err }, 'could not reconcile pods with their containers'));
          } else {
            void sweeper.stop();
            void workerSampler.stop();
            pods.stepDown();
            // The workers' ends are recorded once they are stopped.
            void (async () => {
              await runtime?.stop();
              await meter.stop();
            })().catch((err: unknown) => log.error({ err }, 'stepping down from metering failed'));
          }
        });
        // Containers a killed run of this instance left behind go before anything else starts.
        if (provider instanceof DockerProvider) await provider.removeOrphans();
        await cluster.start(() => workerDirectory.localRows());
        // Every replica delivers webhooks; claims in the store keep them from sending one twice.
        webhooks.start();
      })();
      return started;
    },
    async stopWorkers() {
      await started?.catch(() => undefined);
      await runtime?.stop();
    },
    async killWorkersNow() {
      await runtime?.killAllNow();
    },
    async close() {
      await started?.catch(() => undefined);
      await cluster.close();
      await runtime?.stop();
      await workerSampler.stop();
      await meter.stop().catch((err: unknown) => log.warn({ err }, 'could not record the last usage before closing'));
      balancer.close();
      await sweeper.stop();
      await purgedRows.stop();
      await webhooks.close();
      await store.close();
    },
  };
}

/** What runs this process's workers, by --worker-provider; none when they are started by hand. */
function workerProvider(config: GantryConfig, replicaId: string, logins: RegistryLogins, log: Logger, clock: Clock): Provider | undefined {
  switch (config.workerProvider) {
    case 'process':
      return new ProcessProvider({ workDir: config.workerWorkDir, clock });
    case 'docker':
      return new DockerProvider({
        network: config.dockerNetwork,
        instanceId: dockerInstanceId(config.dataDir),
        replicaId,
        workerApiUrl: { from: config.replicaUrl, to: config.dockerNetwork === 'bridge' ? config.dockerWorkerApiUrl : config.replicaUrl },
        registryLogin: (endpointId) => logins.loginFor(endpointId),
        log: log.child({ component: 'docker' }),
        clock,
      });
    case 'none':
      return undefined;
  }
}
