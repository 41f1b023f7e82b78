// Pods: create, list, read, change and act on an account's long-running containers. A pod holds
// its GPUs (or vCPUs) in the same capacity pool as serverless workers from the moment it is
// placed until it stops, exits or is terminated, so endpoints and the catalog's availability see
// them taken. Every operation on one pod runs after the previous one ended (a start pulling an
// image included), and every write is checked against the revision it read.
import { rm } from 'node:fs/promises';
import type { Store } from '../store/store.js';
import type { PodRecord } from '../store/pod-store.js';
import type { Catalog } from '../domain/catalog.js';
import type { Allocation, CapacityPool } from '../catalog/capacity-pool.js';
import type { PodEngine } from '../runtime/pod-engine.js';
import type { Logger } from '../domain/logger.js';
import { ApiError, conflict, notFound } from '../domain/errors.js';
import { randomId } from '../domain/ids.js';
import { allowedActions, holdsResources, type PodAction, type PodPlacement, type PodStatus } from '../domain/pod.js';
import { applyPodPatch, buildPodSpec, patchWithTemplate, type CreatePodInput, type UpdatePodInput } from '../domain/pod-rules.js';
import type { PodLauncher } from './pod-launcher.js';
import type { RegistryAuthService } from './registry-auths.js';
import type { AccountSecretService } from './account-secrets.js';
import type { TemplateService } from './templates.js';
import type { PriceTable } from '../domain/price-table.js';
import { podHourlyCost, type PodHourlyCost } from './billing/pod-rates.js';
import { randomBytes } from 'node:crypto';

export const newPodId = () => randomId(14);
const holder = (podId: string) => `pod-${podId}`;

export interface PodServiceDeps {
  store: Store;
  catalog: Catalog;
  capacity: CapacityPool;
  /** Absent where the worker provider runs no containers: every call answers 501. */
  engine: PodEngine | undefined;
  providerName: string;
  launcher: PodLauncher;
  registries: Pick<RegistryAuthService, 'ensureUsable'>;
  secrets: Pick<AccountSecretService, 'ensureReferencesExist'>;
  templates: Pick<TemplateService, 'resolveForPod'>;
  /** The prices billing charges; a pod's hourly cost is read from them. */
  prices: PriceTable;
  stopGraceMs: number;
  log: Logger;
  /**
   * Records the pod's usage up to `at` as its row stands (metering): called before a write that
   * forgets the pod's last run (a new start, a restart) or changes what it is billed by (disk,
   * volume size), and at terminate. A failure fails the operation, so no time goes unrecorded.
   */
  settle?: (pod: PodRecord, at: number) => Promise<void>;
  /** A run ended (stop, exit, failed start): the meter records it soon rather than at its next interval. */
  runEnded?: () => void;
  now?: () => number;
}

/** Seconds a client is told to wait when this replica does not run pods right now. */
const RETRY_AFTER_SECONDS = 5;

export class PodService {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly accounts = new Map<string, string>();
  /** Set while containers are reconciled: requests wait for it, so none acts on a pod not yet adopted. */
  private recovering: Promise<void> | undefined;
  /**
   * Only the leader runs pods, as it runs workers: their GPUs are held in the pool it places
   * workers from. Other replicas relay pod requests to it (balancer/pod-proxy.ts).
   */
  private leading = false;

  private readonly now: () => Date;

  constructor(private readonly deps: PodServiceDeps) {
    const clock = deps.now ?? Date.now;
    this.now = () => new Date(clock());
    deps.engine?.onExit((podId, code) => void this.exited(podId, code));
  }

  /** Whether this process runs pods at all. */
  get offered(): boolean {
    return this.deps.engine !== undefined;
  }

  private async ready(): Promise<void> {
    this.engine();
    await this.recovering?.catch(() => undefined);
    if (!this.leading)
      throw new ApiError(503, 'pods are run by the leading replica, and this one does not lead now: send the request again', undefined, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
  }

  /** The engine, or 501 naming the provider pods need. */
  engine(): PodEngine {
    if (this.deps.engine) return this.deps.engine;
    throw new ApiError(
      501,
      `pods need the Docker worker provider: start Gantry with --worker-provider docker (this one runs --worker-provider ${this.deps.providerName})`,
    );
  }

  async create(accountId: string, body: CreatePodInput, now = this.now()): Promise<PodRecord> {
    await this.ready();
    const template = body.templateId === undefined ? undefined : await this.deps.templates.resolveForPod(accountId, body.templateId);
    const spec = buildPodSpec(body, this.deps.catalog, template);
    // Made once and kept in the pod's env, where its owner reads it; a password sent is kept as sent.
    if (spec.startJupyter && spec.env.JUPYTER_PASSWORD === undefined)
      spec.env = { ...spec.env, JUPYTER_PASSWORD: randomBytes(12).toString('base64url') };
    await this.deps.registries.ensureUsable(accountId, spec.registry);
    await this.deps.secrets.ensureReferencesExist(accountId, spec.env);
    if (spec.network) {
      const volume = await this.deps.store.getNetworkVolume(accountId, spec.network.volumeId);
      if (!volume) throw notFound(`network volume ${spec.network.volumeId} not found`);
      if (spec.dataCenterIds.length > 0 && !spec.dataCenterIds.includes(volume.spec.dataCenterId))
        throw new ApiError(400, `network volume ${volume.id} is in ${volume.spec.dataCenterId}, not in one of dataCenterIds`);
      spec.dataCenterIds = [volume.spec.dataCenterId];
    }
    const at = now.toISOString();
    const draft: PodRecord = {
      id: newPodId(),
      accountId,
      spec,
      status: 'PROVISIONING',
      placement: null,
      message: null,
      revision: 1,
      createdAt: at,
      updatedAt: at,
      lastStartedAt: null,
      lastStatusChange: at,
    };
    const placement = this.place(draft);
    if (!placement) throw new ApiError(400, `no ${what(draft)} is free${where(draft)}: the pod cannot be placed now`);
    const pod = { ...draft, placement };
    try {
      await this.deps.store.pods.insert(pod);
    } catch (error) {
      this.deps.capacity.release(holder(pod.id));
      throw error;
    }
    this.accounts.set(pod.id, accountId);
    this.launchInBackground(pod);
    return pod;
  }

  async list(accountId: string): Promise<PodRecord[]> {
    await this.ready();
    return this.deps.store.pods.list(accountId);
  }

  async get(accountId: string, id: string): Promise<PodRecord> {
    await this.ready();
    const pod = await this.deps.store.pods.get(accountId, id);
    if (!pod) throw notFound(`pod ${id} not found`);
    return pod;
  }

  update(accountId: string, id: string, body: UpdatePodInput, now = this.now()): Promise<PodRecord> {
    return this.serially(id, async () => {
      const pod = await this.get(accountId, id);
      const template = body.templateId === undefined ? undefined : await this.deps.templates.resolveForPod(accountId, body.templateId);
      const spec = applyPodPatch(pod.spec, patchWithTemplate(body, template), holdsResources(pod.status));
      if (spec.registry !== pod.spec.registry) await this.deps.registries.ensureUsable(accountId, spec.registry);
      if (spec.env !== pod.spec.env) await this.deps.secrets.ensureReferencesExist(accountId, spec.env);
      return this.write(pod, { spec }, now);
    });
  }

  /** What the pod costs per hour, now and while it runs: the price billing charges for an hour of it. */
  costPerHour(pod: PodRecord): PodHourlyCost {
    return podHourlyCost(pod, this.deps.prices);
  }

  /** Runs an action; 409 when the pod's state (or its lock) does not allow it. */
  act(accountId: string, id: string, action: PodAction): Promise<PodRecord> {
    return this.serially(id, async () => {
      const pod = await this.get(accountId, id);
      if (!allowedActions(pod.status, pod.spec.locked).includes(action)) {
        const lock = pod.spec.locked && action !== 'start' ? ' (the pod is locked: unlock it with PATCH {"locked": false})' : '';
        throw conflict(`cannot ${action} pod ${id} while it is ${pod.status}${lock}`);
      }
      switch (action) {
        case 'start':
          return this.startAgain(pod);
        case 'stop':
          await this.engine().stop(id, this.deps.stopGraceMs);
          return this.free(pod, 'EXITED', null);
        case 'restart': {
          // The row first: the run it describes is recorded (settled) before the container goes.
          const starting = await this.write(pod, { status: 'STARTING', lastStartedAt: null });
          await this.engine().stop(id, this.deps.stopGraceMs);
          return this.relaunch(starting);
        }
        case 'terminate':
          return this.terminate(pod);
      }
    });
  }

  /** Adopts the pods' containers that survived a restart of Gantry and settles the rows of those that did not. */
  /** This replica leads from now on: it adopts the pods' containers and runs pod operations. */
  recover(): Promise<void> {
    const previous = this.recovering ?? Promise.resolve();
    this.recovering = previous
      .catch(() => undefined)
      .then(() => this.reconcile())
      .then(() => {
        this.leading = true;
      });
    return this.recovering;
  }

  /** Another replica leads: this one leaves the pods' containers running and stops acting on them. */
  stepDown(): void {
    this.leading = false;
  }

  private async reconcile(): Promise<void> {
    const engine = this.deps.engine;
    if (!engine) return;
    const pods = await this.deps.store.pods.listAll();
    const adopted = await engine.recover(new Set(pods.map((p) => p.id)));
    for (const pod of pods) {
      this.accounts.set(pod.id, pod.accountId);
      if (!holdsResources(pod.status)) continue;
      if (adopted.has(pod.id) && pod.placement && this.deps.capacity.hold(holder(pod.id), allocationOf(pod, pod.placement))) {
        if (pod.status !== 'RUNNING') await this.write(pod, { status: 'RUNNING', lastStartedAt: this.now().toISOString() });
        continue;
      }
      if (adopted.has(pod.id)) await engine.stop(pod.id, this.deps.stopGraceMs);
      await this.free(pod, 'EXITED', 'the container was gone when Gantry started; start the pod again');
    }
  }

  private async startAgain(pod: PodRecord): Promise<PodRecord> {
    const placement = this.place(pod);
    if (!placement) throw conflict(`no ${what(pod)} is free${where(pod)}: pod ${pod.id} cannot start now`);
    try {
      return this.relaunch(await this.write(pod, { status: 'PROVISIONING', placement, message: null, lastStartedAt: null }));
    } catch (error) {
      this.deps.capacity.release(holder(pod.id));
      throw error;
    }
  }

  private relaunch(pod: PodRecord): PodRecord {
    this.launchInBackground(pod);
    return pod;
  }

  /** Queued behind the operation that asked for it, so that operation's answer comes first. */
  private launchInBackground(pod: PodRecord): void {
    this.serially(pod.id, () => this.launch(pod.accountId, pod.id)).catch((err: unknown) =>
      this.deps.log.error({ podId: pod.id, err }, 'could not start a pod'),
    );
  }

  private async launch(accountId: string, id: string): Promise<void> {
    const pod = await this.deps.store.pods.get(accountId, id);
    if (!pod || !holdsResources(pod.status) || !this.deps.engine) return;
    const engine = this.deps.engine;
    try {
      const launch = await this.deps.launcher.launchOf(pod);
      const starting = pod.status === 'STARTING' ? pod : await this.write(pod, { status: 'STARTING' });
      await engine.start(launch, (message) => engine.note(id, message));
      // Billed from the moment the row says RUNNING, so the compute and the volume's running rate start together.
      const now = this.now();
      await this.write(
        starting,
        { status: 'RUNNING', lastStartedAt: now.toISOString(), spec: { ...starting.spec, pendingRestart: [] } },
        now,
      );
    } catch (error) {
      const message = (error as Error).message;
      engine.note(id, `cannot start: ${message}`);
      this.deps.log.warn({ podId: id, err: error }, 'a pod could not start');
      const current = await this.deps.store.pods.get(accountId, id);
      if (current && holdsResources(current.status)) await this.free(current, 'ERROR', message);
    }
  }

  private async exited(podId: string, code: number | null): Promise<void> {
    const accountId = this.accounts.get(podId);
    if (!accountId || !this.leading) return;
    await this.serially(podId, async () => {
      const pod = await this.deps.store.pods.get(accountId, podId);
      if (!pod || pod.status !== 'RUNNING') return;
      await this.free(pod, code === 0 ? 'EXITED' : 'ERROR', code === 0 ? null : `the container exited with code ${code}`);
    }).catch((error: unknown) => this.deps.log.warn({ podId, err: error }, 'could not record the exit of a pod'));
  }

  private async terminate(pod: PodRecord): Promise<PodRecord> {
    // Usage is recorded up to the moment terminate is asked; the row then goes, and the meter with it.
    const now = this.now();
    await this.deps.settle?.(pod, now.getTime());
    await this.engine().stop(pod.id, this.deps.stopGraceMs);
    this.deps.capacity.release(holder(pod.id));
    await this.deps.store.pods.delete(pod.accountId, pod.id);
    this.accounts.delete(pod.id);
    // The pod is gone whatever happens to its files; files it cannot remove (owned by another user) are left and logged.
    await rm(this.deps.launcher.volumePath(pod.id), { recursive: true, force: true }).catch((err: unknown) =>
      this.deps.log.warn({ podId: pod.id, err }, "could not remove a terminated pod's volume directory"),
    );
    const at = now.toISOString();
    return { ...pod, status: 'TERMINATED', placement: null, lastStatusChange: at, updatedAt: at };
  }

  /** A pod that no longer holds anything: its row says so first, then its GPUs go back to the pool. */
  private async free(pod: PodRecord, status: PodStatus, message: string | null): Promise<PodRecord> {
    const next = await this.write(pod, { status, placement: null, message, spec: { ...pod.spec, pendingRestart: [] } });
    this.deps.capacity.release(holder(pod.id));
    this.deps.runEnded?.();
    return next;
  }

  private place(pod: PodRecord): PodPlacement | undefined {
    const { spec } = pod;
    const capacity = this.deps.capacity;
    const allocation: Allocation | undefined = spec.gpu
      ? capacity.allocateGpuType(holder(pod.id), spec.gpu.typeId, spec.gpu, spec.dataCenterIds)
      : capacity.allocate(holder(pod.id), {
          gpu: null,
          cpu: [{ id: spec.cpu!.flavorId, vcpuCount: spec.cpu!.vcpuCount, memory: spec.cpu!.memory }],
          dataCenterIds: spec.dataCenterIds,
        });
    if (!allocation) return undefined;
    const device = capacity.gpus.find((d) => d.deviceId === allocation.deviceIds[0] && d.dataCenterId === allocation.dataCenterId);
    return {
      dataCenterId: allocation.dataCenterId,
      gpuTypeId: allocation.gpuTypeId,
      deviceIds: allocation.deviceIds,
      cudaVersion: device?.cudaVersion ?? null,
      vcpuCount: allocation.vcpuCount,
    };
  }

  private async write(pod: PodRecord, changes: Partial<PodRecord>, now = this.now()): Promise<PodRecord> {
    const at = now.toISOString();
    const next: PodRecord = {
      ...pod,
      ...changes,
      revision: pod.revision + 1,
      updatedAt: at,
      lastStatusChange: changes.status && changes.status !== pod.status ? at : pod.lastStatusChange,
    };
    if (forgetsUsage(pod, next)) await this.deps.settle?.(pod, now.getTime());
    if (!(await this.deps.store.pods.update(next, pod.revision))) throw conflict(`pod ${pod.id} changed meanwhile; try again`);
    return next;
  }

  private serially<T>(podId: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(podId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    const settled = next.catch(() => undefined);
    this.queues.set(podId, settled);
    void settled.then(() => {
      if (this.queues.get(podId) === settled) this.queues.delete(podId);
    });
    return next;
  }
}

/** Whether the write loses what the meter reads of the pod's past: its last run, or the sizes it was billed by until now. */
function forgetsUsage(pod: PodRecord, next: PodRecord): boolean {
  return (
    (pod.lastStartedAt !== null && next.lastStartedAt !== pod.lastStartedAt) ||
    next.spec.disk !== pod.spec.disk ||
    next.spec.persistent?.size !== pod.spec.persistent?.size
  );
}

function allocationOf(pod: PodRecord, placement: PodPlacement): Allocation {
  return {
    gpuTypeId: placement.gpuTypeId,
    dataCenterId: placement.dataCenterId,
    deviceIds: placement.deviceIds,
    cpuFlavor: pod.spec.cpu?.flavorId ?? null,
    vcpuCount: placement.vcpuCount,
  };
}

function what(pod: PodRecord): string {
  const { gpu, cpu } = pod.spec;
  return gpu ? `${gpu.count} x ${gpu.typeId}` : `${cpu!.vcpuCount} vCPUs of ${cpu!.flavorId}`;
}

function where(pod: PodRecord): string {
  return pod.spec.dataCenterIds.length > 0 ? ` in ${pod.spec.dataCenterIds.join(', ')}` : '';
}
