// Rolling an endpoint onto a new release without a gap: workers of the old release keep serving
// until workers of the new one are ready to take their place, one for one. Those no longer needed
// go: an idle one is stopped, a busy one is drained (given no new work) and stopped once idle. A
// new release that never gets ready (a bad image) leaves the old workers serving, going only as
// scale-down would have them go; one waiting for room (no capacity free) frees an old worker's.
import { idleTimeoutApplies } from '../domain/endpoint-spec.js';
import { DEFAULT_STABLE_WINDOW_MS } from '../domain/scaling-policy.js';
import type { WorkerState } from '../domain/workers.js';
import type { EndpointRecord } from '../store/store.js';
import type { WorkerKind } from './kinds/worker-kind.js';
import type { ManagedWorker } from './managed-worker.js';

export interface StaleWorker {
  workerId: string;
  /** Jobs or requests it holds now. */
  busy: number;
  /** Given no new work already. */
  draining: boolean;
  /** Idle for the endpoint's idle grace: scale-down would stop it, roll or not. */
  rested: boolean;
  /** Ready to serve (IDLE or RUNNING): one still starting, of a release already replaced, serves no one. */
  ready: boolean;
}

export interface RollInputs {
  /** Workers the scaling policy wants of the current release. */
  desired: number;
  /** Workers of the current release ready to serve. */
  ready: number;
  /** Workers of the current release waiting for capacity an old one may hold. */
  waitingForRoom: number;
  /** False where new workers cannot start beside old ones (they bind the same ports): the old go first. */
  side: boolean;
  stale: readonly StaleWorker[];
}

export interface RollPlan {
  /** Old workers to stop now (idle). */
  stop: string[];
  /** Old workers to give no new work (busy): stopped once idle. */
  drain: string[];
}

export function planRoll({ desired, ready, waitingForRoom, side, stale: all }: RollInputs): RollPlan {
  const unready = all.filter((w) => !w.ready && w.busy === 0).map((w) => w.workerId);
  const plan = planReady({ desired, ready, waitingForRoom, side, stale: all.filter((w) => !unready.includes(w.workerId)) });
  return { stop: [...unready, ...plan.stop], drain: plan.drain };
}

function planReady({ desired, ready, waitingForRoom, side, stale }: RollInputs): RollPlan {
  // Nothing of the new release up (a bad image, or slow to start): the old workers serve on, and
  // go only as scale-down would have them go, idle for their grace beyond what is wanted.
  if (side && ready + waitingForRoom === 0) {
    const serving = stale.filter((w) => !w.draining);
    const spare = serving.filter((w) => w.busy === 0 && w.rested).slice(0, Math.max(0, serving.length - desired));
    const drained = stale.filter((w) => w.draining && w.busy === 0);
    return { stop: [...drained, ...spare].map((w) => w.workerId), drain: [] };
  }
  const keep = Math.max(0, desired - ready - waitingForRoom);
  // Draining ones are going already; of the rest the busiest stay, being the ones serving most.
  const serving = stale.filter((w) => !w.draining).sort((a, b) => b.busy - a.busy);
  const going = [...stale.filter((w) => w.draining), ...serving.slice(keep)];
  return {
    stop: going.filter((w) => w.busy === 0).map((w) => w.workerId),
    drain: going.filter((w) => w.busy > 0 && !w.draining).map((w) => w.workerId),
  };
}

/** What the control loop lends the roll: its workers, their states and kinds, and stopping one. */
export interface RollHooks {
  /** The endpoint's workers not on their way out. */
  workersOf(endpointId: string): ManagedWorker[];
  stateOf(worker: ManagedWorker): WorkerState;
  kindOf(worker: ManagedWorker): WorkerKind;
  retire(worker: ManagedWorker, reason: string): Promise<void>;
}

/**
 * Which workers drain (get no new work, and are stopped once idle): old-release ones as a roll
 * goes, and busy ones above a lowered max. Also which release each endpoint was last seen at.
 */
export class ReleaseRolls {
  private readonly draining = new Set<string>();
  /** Busy workers above a lowered max, given no new work. */
  private readonly overMax = new Set<string>();
  private readonly releases = new Map<string, number>();

  constructor(private readonly hooks: RollHooks) {}

  /** Whether the endpoint has moved to a release it was not at when last seen. */
  isNewRelease(endpoint: EndpointRecord): boolean {
    const seen = this.releases.get(endpoint.id);
    this.releases.set(endpoint.id, endpoint.version);
    return seen !== undefined && seen < endpoint.version;
  }

  /** Drains and stops the endpoint's old workers the `desired` new ones no longer need. */
  async roll(endpoint: EndpointRecord, desired: number, side: boolean, now: number): Promise<void> {
    const { hooks } = this;
    const { spec } = endpoint;
    const graceMs = idleTimeoutApplies(spec.type, spec.scaling) ? spec.workers.idleTimeout * 1000 : DEFAULT_STABLE_WINDOW_MS;
    const workers = hooks.workersOf(endpoint.id);
    const stale = workers.filter((w) => w.version < endpoint.version);
    if (stale.length === 0) return;
    const states = workers.filter((w) => w.version >= endpoint.version).map((w) => hooks.stateOf(w));
    const plan = planRoll({
      desired,
      side,
      ready: states.filter((state) => state === 'IDLE' || state === 'RUNNING').length,
      waitingForRoom: states.filter((state) => state === 'THROTTLED').length,
      stale: stale.map((w) => {
        const { busy, idleSince } = hooks.kindOf(w).load(w);
        const rested = busy === 0 && idleSince !== null && now - idleSince >= graceMs;
        const state = hooks.stateOf(w);
        return {
          workerId: w.workerId,
          busy,
          draining: this.draining.has(w.workerId),
          rested,
          ready: state === 'IDLE' || state === 'RUNNING',
        };
      }),
    });
    for (const worker of stale) {
      if (plan.drain.includes(worker.workerId)) {
        this.draining.add(worker.workerId);
        hooks.kindOf(worker).park(worker.workerId);
      } else if (plan.stop.includes(worker.workerId)) {
        await hooks.retire(worker, `rolling to version ${endpoint.version}`);
      }
    }
  }

  /** Busy workers above a lowered max take no new work (the scaler stops them once idle); with max raised again, they do. */
  drainOverMax(endpointId: string, drain: readonly string[]): void {
    for (const worker of this.hooks.workersOf(endpointId)) {
      const wanted = drain.includes(worker.workerId);
      // One an older release drains stays drained whatever max says.
      if (worker.phase !== 'RUNNING' || this.draining.has(worker.workerId) || wanted === this.overMax.has(worker.workerId)) continue;
      const kind = this.hooks.kindOf(worker);
      if (wanted) kind.park(worker.workerId);
      else kind.unpark(worker);
      if (wanted) this.overMax.add(worker.workerId);
      else this.overMax.delete(worker.workerId);
    }
  }

  forget(workerId: string): void {
    this.draining.delete(workerId);
    this.overMax.delete(workerId);
  }
}
