// Gantry's own workers: a control loop over every endpoint that places, starts, freezes, thaws
// and stops workers by the scaling policy, replaces crashed and unhealthy ones (with back-off),
// and rolls endpoints onto new releases without a gap (release-roll.ts). What differs
// between queue and HTTP workers is their kind's business (kinds/); where workers run is the
// provider's. Starts run in the background (STARTING): an image pull for one endpoint must not
// hold up the pass that scales every other.
import type { EndpointRecord } from '../store/store.js';
import { idleTimeoutApplies } from '../domain/endpoint-spec.js';
import { decideScaling } from '../domain/scaling-policy.js';
import { PeriodicTask } from '../domain/periodic-task.js';
import { settledWithin } from '../domain/settled-within.js';
import type { WorkerState } from '../domain/workers.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { Provider, WorkerExit } from './provider.js';
import { startOnProvider } from './worker-launch.js';
import { CrashTracker } from './crash-tracker.js';
import { ReleaseRolls } from './release-roll.js';
import { newManagedWorker, type ManagedWorker } from './managed-worker.js';
import { FlashBoot } from './flashboot.js';
import type { WorkerKind } from './kinds/worker-kind.js';
import type { WorkerRuntimeDeps } from './runtime-deps.js';
import { placementDataCenters, type EndpointVolume } from './volumes/volume-mounts.js';
import { ThrottleReports, type ThrottleReport } from './throttle-reports.js';
import { WorkerOwners } from './worker-owners.js';
import { WorkerUsageFeed } from './worker-usage.js';
import { logPassFailure } from '../store/unavailable.js';

const isThrottled = (worker: ManagedWorker) => worker.phase === 'THROTTLED';

/** The longest a crashing endpoint waits before its next worker starts. */
const MAX_CRASH_BACKOFF_MS = 60_000;

export class WorkerRuntime {
  private readonly workers = new Map<string, ManagedWorker>();
  /** Endpoints whose next worker cannot be placed, and why. */
  private readonly throttles: ThrottleReports;
  /** Workers being stopped in the background; stop() waits for them. */
  private readonly stopping = new Set<Promise<void>>();
  private readonly owners = new WorkerOwners();
  private readonly crashes: CrashTracker;
  private readonly flashBoot: FlashBoot;
  private readonly rolls: ReleaseRolls;
  /** Starts under way, by worker: each settles once the worker runs, failed, or was stopped again. */
  private readonly starting = new Map<string, Promise<void>>();
  private readonly loop: PeriodicTask;
  private readonly now: () => number;
  readonly usage = new WorkerUsageFeed(); // starts, freezes, thaws and ends, for metering
  private unsubscribe: (() => void)[] = [];

  constructor(private readonly deps: WorkerRuntimeDeps) {
    this.now = deps.clock ?? Date.now;
    this.crashes = new CrashTracker(deps.config.crashBackoffMs, MAX_CRASH_BACKOFF_MS);
    this.throttles = new ThrottleReports(deps.capacity, deps.log);
    const lent = {
      kindOf: (worker: ManagedWorker) => this.kindOf(worker),
      retire: (worker: ManagedWorker, why: string) => this.retire(worker, why),
    };
    const { provider, log } = deps;
    this.flashBoot = new FlashBoot({ ...lent, provider, usage: this.usage, log, now: this.now, worker: (id) => this.workers.get(id) });
    this.rolls = new ReleaseRolls({
      ...lent,
      workersOf: (endpointId) => this.workersOf(endpointId).filter((w) => w.phase !== 'STOPPING'),
      stateOf: (worker) => this.stateOf(worker),
    });
    this.loop = new PeriodicTask({
      run: () => this.reconcileAll(),
      everyMs: deps.config.scaleIntervalMs,
      onError: (err) => logPassFailure(deps.log, err, 'worker runtime pass failed'),
      ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    });
  }

  /** Starts the control loop; after stop() it may start again (a replica that regains leadership). */
  start(): void {
    if (this.loop.running) return;
    const wake = { passNow: () => this.runSoon(), scaleFromZero: (endpointId: string) => this.nudge(endpointId) };
    this.unsubscribe = [
      this.deps.provider.onExit((exit) => void this.exited(exit)),
      ...Object.values(this.deps.kinds).map((kind) => kind.listen(wake)),
    ];
    this.loop.start({ runNow: true });
  }

  /** Stops every worker this runtime started (each gets --worker-stop-grace-ms) and frees their capacity. */
  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    await this.loop.stop();
    const grace = this.deps.config.workerStopGraceMs;
    // No new work, a waiting take let go (results of the jobs held are still taken); a start
    // under way stops its worker once started.
    for (const worker of this.workers.values()) {
      if (worker.phase === 'STARTING') worker.phase = 'STOPPING';
      this.kindOf(worker).retire(worker.workerId);
    }
    // A start held up (a stalled image pull) must not hold shutdown: the provider's close ends it.
    await settledWithin(this.startsSettled(), grace);
    await Promise.all(this.stopping);
    await this.deps.provider.close(grace);
    // Stopped by Gantry, as at scale-down: jobs they still hold go back without counting a loss.
    for (const worker of [...this.workers.values()]) {
      await this.forget(worker).catch((err: unknown) =>
        this.deps.log.error({ err, workerId: worker.workerId }, 'could not return its jobs'),
      );
    }
    await settledWithin(this.startsSettled(), grace);
  }

  /** A second signal: kills every worker without grace, so none outlives the process. */
  async killAllNow(): Promise<void> {
    void this.loop.stop().catch(() => undefined);
    await this.deps.provider.close(0);
  }

  /** Endpoints that have workers here, frozen ones included. */
  endpointIds(): Set<string> {
    return new Set([...this.workers.values()].map((w) => w.endpointId));
  }

  /** Work arrived and no worker waited: with no worker at all (scale from zero) a pass runs now. */
  nudge(endpointId: string): void {
    if (this.workersOf(endpointId).length === 0) this.runSoon();
  }

  /** Runs one pass shortly, coalescing the requests that arrive meanwhile. */
  runSoon(): void {
    this.loop.runSoon();
  }

  /** One pass (never overlapping another), then unless told not to the starts it began; the loop's own passes never wait for starts. */
  async tick(options: { waitForStarts?: boolean } = {}): Promise<void> {
    await this.loop.runNow();
    if (options.waitForStarts ?? true) await this.startsSettled();
  }

  /** Resolves once every start under way now has settled. */
  async startsSettled(): Promise<void> {
    await Promise.all([...this.starting.values()]);
  }

  workersOf(endpointId: string): ManagedWorker[] {
    return [...this.workers.values()].filter((w) => w.endpointId === endpointId && w.phase !== 'FROZEN');
  }

  stateOf(worker: ManagedWorker): WorkerState {
    // However long a pull takes, a worker being started is not unhealthy: nothing of it runs yet.
    if (worker.phase === 'STARTING') return 'INITIALIZING';
    return this.kindOf(worker).state(worker, this.now());
  }

  crashReport(endpointId: string) {
    return this.crashes.report(endpointId);
  }

  /** Whether this runtime started the worker for that endpoint (it may have ended since; its logs remain). */
  startedFor(endpointId: string, workerId: string): boolean {
    return this.owners.owns(endpointId, workerId);
  }

  /** The worker's last lines; none unless the worker belongs to the endpoint. */
  logs(endpointId: string, workerId: string, tail: number) {
    return this.startedFor(endpointId, workerId) ? this.deps.provider.logs(workerId, tail) : [];
  }

  followLogs(endpointId: string, workerId: string, listener: Parameters<Provider['followLogs']>[1]): () => void {
    return this.startedFor(endpointId, workerId) ? this.deps.provider.followLogs(workerId, listener) : () => undefined;
  }

  isManaged(workerId: string): boolean {
    return this.workers.has(workerId);
  }

  private kindOf(worker: ManagedWorker): WorkerKind {
    return this.deps.kinds[worker.routing];
  }

  private async reconcileAll(): Promise<void> {
    const endpoints = await this.deps.store.listAllEndpoints();
    const live = new Set(endpoints.map((e) => e.id));
    for (const kind of Object.values(this.deps.kinds)) kind.endpointsLive?.(live);
    for (const worker of [...this.workers.values()]) {
      if (!live.has(worker.endpointId)) await this.retire(worker, 'its endpoint was deleted');
    }
    for (const endpoint of endpoints) await this.reconcile(endpoint);
  }

  private async reconcile(endpoint: EndpointRecord): Promise<void> {
    const now = this.now();
    const kind = this.deps.kinds[endpoint.spec.type];
    if (this.rolls.isNewRelease(endpoint)) this.crashes.forget(endpoint.id); // the old release's back-off is not the new one's
    await this.flashBoot.expire(endpoint, now);
    for (const worker of this.workersOf(endpoint.id)) await this.tend(worker, endpoint, now);
    const active = this.workersOf(endpoint.id).filter((w) => w.phase !== 'STOPPING');
    const stale = active.filter((w) => w.version < endpoint.version);
    // Old workers are not counted while new ones come up beside them (at most twice max in all),
    // unless two cannot run at once.
    const { spec } = endpoint;
    const surge = !(spec.type === 'LOAD_BALANCER' && this.deps.provider.oneHttpWorkerPerHost);
    const counted = surge ? active.filter((w) => w.version >= endpoint.version) : active;
    const decision = decideScaling({
      now,
      ...(await kind.demand(endpoint)),
      workers: counted.map((w) => ({ workerId: w.workerId, state: this.stateOf(w), ...this.kindOf(w).load(w), startedAt: w.createdAt })),
      min: spec.workers.min,
      max: spec.workers.max,
      idleTimeoutSec: idleTimeoutApplies(spec.type, spec.scaling) ? spec.workers.idleTimeout : null,
      scaling: spec.scaling,
    });
    for (const workerId of decision.stop) {
      const worker = this.workers.get(workerId);
      if (worker) await this.scaleDown(worker, endpoint);
    }
    this.rolls.drainOverMax(endpoint.id, decision.drain);
    if (stale.length > 0) await this.rolls.roll(endpoint, surge ? decision.desired : 0, surge, now);
    const room = 2 * spec.workers.max - this.workersOf(endpoint.id).filter((w) => w.phase !== 'STOPPING').length;
    for (let i = 0; i < (surge ? Math.min(decision.start, room) : decision.start); i++) {
      if (!(await this.scaleUp(endpoint, now))) break;
    }
  }

  /** Per-worker upkeep: place throttled ones, roll stale ones, replace unhealthy or recycled ones. */
  private async tend(worker: ManagedWorker, endpoint: EndpointRecord, now: number): Promise<void> {
    if (worker.phase === 'THROTTLED') {
      // One of an old release never placed is not started now: a new one will be, if needed.
      if (worker.version < endpoint.version) return void this.workers.delete(worker.workerId);
      return this.launch(worker, endpoint);
    }
    if (worker.phase !== 'RUNNING') return;
    const kind = this.kindOf(worker);
    const served = kind.hasServed(worker);
    if (served && worker.version === endpoint.version) this.crashes.recovered(endpoint.id);
    const reason = kind.replaceReason(worker, now);
    if (!reason) return;
    // One that never got as far as serving is a failed start, as a crash is: the endpoint backs off.
    if (!served) this.recordFailure(worker, reason, now);
    await this.retire(worker, reason);
  }

  private async scaleUp(endpoint: EndpointRecord, now: number): Promise<boolean> {
    if (await this.flashBoot.thawOne(endpoint)) return true;
    if (!this.crashes.mayStart(endpoint.id, now)) return false;
    const worker = newManagedWorker(endpoint, now);
    this.workers.set(worker.workerId, worker);
    this.owners.remember(worker.workerId, worker.endpointId);
    await this.launch(worker, endpoint);
    return true;
  }

  /** Places the worker and starts it in the background; without capacity it stays THROTTLED. */
  private async launch(worker: ManagedWorker, endpoint: EndpointRecord): Promise<void> {
    const volumes = (await this.deps.volumes?.of(endpoint)) ?? [];
    // A worker runs where it can mount the endpoint's volume.
    const placement = { ...endpoint.spec, dataCenterIds: placementDataCenters(endpoint.spec.dataCenterIds, volumes) };
    const allocation = this.deps.capacity.allocate(worker.workerId, placement);
    if (!allocation) {
      await this.flashBoot.makeRoomFor(endpoint.id);
      return this.throttles.unplaced(endpoint.id, placement, this.now());
    }
    this.throttles.placed(endpoint.id);
    worker.allocation = allocation;
    worker.phase = 'STARTING';
    this.usage.started(worker, endpoint, allocation, this.now());
    const volume = volumes.find((v) => v.dataCenterId === allocation.dataCenterId);
    const start = this.startInBackground(worker, endpoint, allocation, volume).finally(() => this.starting.delete(worker.workerId));
    this.starting.set(worker.workerId, start);
  }

  /** Why the endpoint's workers wait for capacity, while they do. */
  throttleReport(endpointId: string): ThrottleReport | undefined {
    return this.throttles.of(endpointId, this.workersOf(endpointId).some(isThrottled));
  }

  /** Starts a placed worker. Never throws: a failure is recorded like a crash. */
  private async startInBackground(
    worker: ManagedWorker,
    endpoint: EndpointRecord,
    allocation: Allocation,
    volume: EndpointVolume | undefined,
  ): Promise<void> {
    const { provider, log } = this.deps;
    const kind = this.kindOf(worker);
    const handle = await startOnProvider({ provider, log, kind }, worker, endpoint, allocation, volume);
    if (handle instanceof Error) {
      // It exited while starting, which was handled as a crash already.
      if (this.workers.get(worker.workerId) !== worker) return;
      const reason = `the worker could not start: ${handle.message}`;
      if (worker.phase === 'STARTING') this.abandon(worker, reason);
      else this.drop(worker);
      return;
    }
    if (this.workers.get(worker.workerId) !== worker) {
      // It exited while its start was being reported; the exit was handled as such.
      await provider.stop(worker.workerId, 0).catch(() => undefined);
      return;
    }
    if (worker.phase !== 'STARTING') return this.stopStarted(worker);
    try {
      kind.started(worker, endpoint, handle);
    } catch (err) {
      await provider.stop(worker.workerId, 0).catch(() => undefined);
      this.abandon(worker, `the worker could not start: ${(err as Error).message}`);
      return;
    }
    worker.phase = 'RUNNING';
    worker.pid = handle.pid ?? null;
    worker.processStartedAt = handle.startedAt;
    log.info({ workerId: worker.workerId, endpointId: endpoint.id, version: worker.version }, 'worker started');
  }

  /** Its stop was asked for while it was starting (scaled down, endpoint deleted, runtime stopping). */
  private async stopStarted(worker: ManagedWorker): Promise<void> {
    await this.deps.provider.stop(worker.workerId, this.deps.config.workerStopGraceMs).catch((err: unknown) => {
      this.deps.log.warn({ err, workerId: worker.workerId }, 'could not stop a worker that started after it was no longer wanted');
    });
    await this.forget(worker);
  }

  /** A worker that was no longer wanted when its start failed: its place goes, no crash is counted. */
  private drop(worker: ManagedWorker): void {
    this.usage.ended(worker.workerId, this.now());
    this.deps.capacity.release(worker.workerId);
    this.workers.delete(worker.workerId);
  }

  /** A worker that never ran: its place goes, and the endpoint backs off as after a crash. */
  private abandon(worker: ManagedWorker, reason: string): void {
    this.drop(worker);
    this.crashes.record(worker.endpointId, reason, [], this.now());
  }

  private async scaleDown(worker: ManagedWorker, endpoint: EndpointRecord): Promise<void> {
    if (worker.phase === 'THROTTLED') {
      this.workers.delete(worker.workerId);
      return;
    }
    // Nothing of it runs yet to freeze.
    if (worker.phase === 'STARTING') return this.retire(worker, 'scaled down');
    if (this.kindOf(worker).load(worker).busy > 0) return;
    if (!(await this.flashBoot.freezeIfRoom(worker, endpoint))) await this.retire(worker, 'scaled down');
  }

  /** Stops a worker beside the pass: no new work, its long-poll answered so it can exit; its capacity is freed once it is gone. */
  private async retire(worker: ManagedWorker, reason: string): Promise<void> {
    if (worker.phase === 'STOPPING') return; // already going: stopping it again only signals it again
    const { provider, config, log } = this.deps;
    const wasStarting = worker.phase === 'STARTING';
    worker.phase = 'STOPPING';
    this.kindOf(worker).retire(worker.workerId);
    this.flashBoot.frozen.remove(worker.endpointId, worker.workerId);
    log.info({ workerId: worker.workerId, endpointId: worker.endpointId, reason }, 'stopping worker');
    // Its start stops it once it is up (startInBackground); until then it keeps its place.
    if (wasStarting) return;
    const stopping = (async () => {
      if (worker.processStartedAt !== null) {
        // A frozen worker cannot act on a request to stop; thaw it first.
        await provider.thaw(worker.workerId).catch(() => undefined);
        await provider.stop(worker.workerId, config.workerStopGraceMs);
      }
      await this.forget(worker);
    })().catch((err: unknown) => log.error({ err, workerId: worker.workerId }, 'stopping a worker failed'));
    this.stopping.add(stopping);
    void stopping.finally(() => this.stopping.delete(stopping));
    this.runSoon();
  }

  /** A worker that is gone: its work returns to the queue (lost, if it crashed), its capacity and its traffic go. */
  private async forget(worker: ManagedWorker, crashed = false): Promise<void> {
    this.usage.ended(worker.workerId, this.now());
    this.workers.delete(worker.workerId);
    this.rolls.forget(worker.workerId);
    this.flashBoot.frozen.remove(worker.endpointId, worker.workerId);
    const kind = this.kindOf(worker);
    await kind.releaseWork(worker.workerId, crashed);
    kind.forget(worker.workerId);
    this.deps.capacity.release(worker.workerId);
  }

  /** The endpoint backs off, keeping the reason and the worker's last lines for its crash-loop report. */
  private recordFailure(worker: ManagedWorker, reason: string, at: number): void {
    this.crashes.record(
      worker.endpointId,
      reason,
      this.deps.provider.logs(worker.workerId, 20).map((l) => l.line),
      at,
    );
  }

  /** A worker ended. If nobody asked it to, that is a crash: back-off, and its work is served by another. */
  private async exited(exit: WorkerExit): Promise<void> {
    const worker = this.workers.get(exit.workerId);
    if (!worker || exit.expected || worker.phase === 'STOPPING') return;
    const reason = exit.signal ? `the worker was killed by ${exit.signal}` : `the worker exited with code ${exit.code}`;
    this.deps.log.warn({ workerId: worker.workerId, endpointId: worker.endpointId, reason }, 'worker exited unexpectedly');
    this.recordFailure(worker, reason, this.now());
    await this.forget(worker, true);
    this.runSoon();
  }
}
