// The worker runtime on a real store with a fake provider and manual time: a test queues jobs,
// plays the workers' side (pings, held requests, health checks, crashes) and runs the control
// loop's passes itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ConfigFlags } from '../../src/config.js';
import { loadCatalog } from '../../src/catalog/catalog.js';
import { CapacityPool } from '../../src/catalog/capacity-pool.js';
import type { EndpointSpec } from '../../src/domain/endpoint-spec.js';
import { randomId } from '../../src/domain/ids.js';
import type { BackendHealth } from '../../src/runtime/http-backends.js';
import { BalancerPool } from '../../src/runtime/balancer-pool.js';
import { HttpWorkers } from '../../src/runtime/kinds/http-workers.js';
import { QueueWorkers } from '../../src/runtime/kinds/queue-workers.js';
import type { QueueSignals } from '../../src/runtime/ports.js';
import { WorkerRegistry } from '../../src/runtime/worker-registry.js';
import { WorkerRuntime } from '../../src/runtime/worker-runtime.js';
import type { EndpointRecord } from '../../src/store/store.js';
import { FakeProvider } from './fake-provider.js';
import { ManualTime } from './manual-time.js';
import { openTestStore } from './test-store.js';
import { silentLogger } from '../../src/domain/logger.js';
import { AccountSecretService } from '../../src/services/account-secrets.js';
import { Secrets } from '../../src/services/secrets/secrets.js';

/** The queue's wake-ups, recorded; a test announces new jobs with `queued`. */
class RecordingSignals implements QueueSignals {
  readonly announced: string[] = [];
  private readonly listeners: ((endpointId: string) => void)[] = [];
  onQueued(listener: (endpointId: string) => void): void {
    this.listeners.push(listener);
  }
  jobsQueued(endpointId: string): void {
    this.announced.push(endpointId);
  }
  jobChanged(): void {}
  queued(endpointId: string): void {
    for (const listener of this.listeners) listener(endpointId);
  }
}

export async function startRuntimeRig(flags: ConfigFlags = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-runtime-'));
  const testStore = await openTestStore(dataDir);
  const store = testStore.store;
  const config = loadConfig({ dataDir, ...testStore.flags, ...flags }, {});
  const { account } = await store.ensureAccount({ id: `acct-${randomId(8)}`, name: 'runtime-rig', createdAt: new Date().toISOString() });
  const time = new ManualTime();
  const provider = new FakeProvider(time.now);
  const registry = new WorkerRegistry(3 * config.workerPingIntervalMs);
  const signals = new RecordingSignals();
  const health = new Map<string, BackendHealth>();
  const balancer = new BalancerPool(
    {
      healthIntervalMs: 20,
      healthCheck: async (backend) => ({ health: health.get(backend.workerId) ?? 'INITIALIZING', reason: 'set by the test' }),
    },
    time.now,
  );
  // Secret references in env values resolve as in a server, against the rig's account.
  const secrets = new AccountSecretService(store, new Secrets({ secretKey: undefined, dataDir, shared: false }));
  const capacity = new CapacityPool([], [{ vcpus: 8, dataCenterId: 'local', flavors: ['cpu3c'] }], loadCatalog(config.catalogFile));
  const runtime = new WorkerRuntime({
    store,
    provider,
    capacity,
    kinds: {
      QUEUE: new QueueWorkers({
        store,
        registry,
        credentials: { create: async () => `cred-${randomId(6)}` },
        signals,
        secrets,
        config,
        now: time.now,
        jobFinished: async () => signals.jobChanged(),
      }),
      LOAD_BALANCER: new HttpWorkers(balancer, config, secrets),
    },
    config,
    log: silentLogger,
    clock: time.now,
    scheduler: time,
  });

  async function createEndpoint(spec: Partial<EndpointSpec> = {}): Promise<EndpointRecord> {
    const at = new Date(time.now()).toISOString();
    const endpoint: EndpointRecord = {
      id: randomId(12).toLowerCase(),
      accountId: account.id,
      version: 1,
      revision: 1,
      createdAt: at,
      updatedAt: at,
      spec: {
        name: 'rig',
        type: 'QUEUE',
        image: 'acme/worker:1',
        args: '',
        entrypoint: ['worker'],
        cmd: [],
        disk: 10,
        ports: [],
        env: {},
        registry: null,
        gpu: null,
        cpu: [{ id: 'cpu3c', vcpuCount: 2, memory: 4 }],
        workers: { min: 0, max: 3, idleTimeout: 5 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
        dataCenterIds: [],
        networkVolumes: [],
        timeout: 600_000,
        flashboot: 'OFF',
        ...spec,
      },
    };
    await store.insertEndpoint(endpoint);
    return endpoint;
  }

  return {
    store,
    config,
    time,
    provider,
    registry,
    signals,
    balancer,
    capacity,
    runtime,
    createEndpoint,
    secrets,
    accountId: account.id,

    /** A change of the endpoint: by default a new version (what a rolling update reacts to). */
    async changeEndpoint(
      endpoint: EndpointRecord,
      spec: Partial<EndpointSpec>,
      options: { newVersion?: boolean } = {},
    ): Promise<EndpointRecord> {
      const current = (await store.findEndpoint(endpoint.id))!;
      // Scaling fields (workers, scaling) change no worker and make no new version.
      const version = (options.newVersion ?? true) ? current.version + 1 : current.version;
      const next = { ...current, spec: { ...current.spec, ...spec }, version, revision: current.revision + 1 };
      if (!(await store.updateEndpoint(next, current.revision))) throw new Error('endpoint update lost a race');
      return next;
    },

    async queueJob(endpointId: string): Promise<string> {
      const id = `job-${randomId(8)}`;
      const now = time.now();
      await store.jobs.insert({
        id,
        endpointId,
        accountId: account.id,
        input: '{}',
        webhook: null,
        s3Config: null,
        executionTimeoutMs: 600_000,
        lowPriority: false,
        retentionMs: 60_000,
        ttlMs: 86_400_000,
        submittedAt: now,
        expiresAt: now + 86_400_000,
      });
      return id;
    },

    /** The worker takes up to `limit` queued jobs through the worker protocol. */
    async take(workerId: string, endpointId: string, limit = 1): Promise<string[]> {
      const now = time.now();
      const jobs = await store.jobs.take(endpointId, workerId, limit, now, now + config.jobLeaseMs);
      registry.seen(workerId, endpointId, now);
      registry.jobsTaken(
        workerId,
        jobs.map((j) => j.id),
      );
      return jobs.map((j) => j.id);
    },

    /** The worker pings, stating the jobs it runs now. */
    ping(workerId: string, endpointId: string, jobIds: string[] = []): void {
      registry.pinged(workerId, endpointId, time.now(), jobIds, undefined);
    },

    /** What the (fake) health check of an HTTP worker answers from now on. */
    setHealth(workerId: string, verdict: BackendHealth): void {
      health.set(workerId, verdict);
    },

    async close(): Promise<void> {
      await runtime.stop();
      balancer.close();
      await store.close();
      await testStore.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type RuntimeRig = Awaited<ReturnType<typeof startRuntimeRig>>;

/** Waits (briefly, on real time) for something asynchronous the runtime does, such as handling an exit. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
