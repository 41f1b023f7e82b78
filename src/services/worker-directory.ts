// Every worker of an endpoint as the API shows it: those Gantry started (from the runtime),
// those started by hand that speak the worker protocol (from the registry), and with several
// replicas those the other replicas know (from the shared view).
import type { WorkerCounts, WorkerRegistry } from '../runtime/worker-registry.js';
import type { WorkerRuntime } from '../runtime/worker-runtime.js';
import type { LocalWorkerRow, PeerDirectory } from '../domain/workers.js';
import type { WorkerRow } from '../domain/workers.js';

export class WorkerDirectory {
  constructor(
    private readonly registry: WorkerRegistry,
    private readonly runtime: WorkerRuntime | undefined,
    private readonly staleAfterMs: number,
    private readonly peers: PeerDirectory | undefined = undefined,
    private readonly now: () => number = Date.now,
  ) {}

  list(endpointId: string, endpointVersion: number): WorkerRow[] {
    const rows = this.localList(endpointId, endpointVersion);
    const seen = new Set(rows.map((row) => row.id));
    for (const peer of this.peers?.of(endpointId) ?? []) {
      // A hand-started worker may call several replicas; it is listed once, as this replica sees it if it does.
      if (seen.has(peer.id)) continue;
      seen.add(peer.id);
      const { replicaUrl: _replicaUrl, measuredAtMs, ...row } = peer;
      rows.push({
        ...row,
        isStale: row.version !== null && row.version < endpointVersion,
        // Not from startedAt: that is the other machine's clock, and a hand-started worker has none.
        uptimeSeconds: row.uptimeSeconds === null ? null : Math.floor(row.uptimeSeconds + Math.max(0, this.now() - measuredAtMs) / 1000),
      });
    }
    return rows;
  }

  /** This replica's own workers of every endpoint, as it shares them with the others. */
  localRows(): LocalWorkerRow[] {
    const endpointIds = new Set([...this.registry.endpointIds(), ...(this.runtime?.endpointIds() ?? [])]);
    return [...endpointIds].flatMap((endpointId) => this.localList(endpointId, 0).map((row) => ({ endpointId, row })));
  }

  private localList(endpointId: string, endpointVersion: number): WorkerRow[] {
    const now = this.now();
    const managed = (this.runtime?.workersOf(endpointId) ?? []).filter((w) => w.phase !== 'STOPPING');
    const rows: WorkerRow[] = managed.map((w) => ({
      id: w.workerId,
      status: this.runtime!.stateOf(w),
      isStale: w.version < endpointVersion,
      version: w.version,
      gpuCount: w.allocation?.deviceIds.length ?? 0,
      image: w.image,
      uptimeSeconds: w.processStartedAt === null ? null : Math.floor((now - w.processStartedAt) / 1000),
      gpuTypeId: w.allocation?.gpuTypeId ?? null,
      dataCenterId: w.allocation?.dataCenterId ?? null,
      startedAt: w.processStartedAt === null ? null : new Date(w.processStartedAt).toISOString(),
      managed: true,
      ...(w.statusMessage === null ? {} : { statusMessage: w.statusMessage }),
    }));
    for (const workerId of this.registry.seenWorkers(endpointId)) {
      if (this.runtime?.isManaged(workerId)) continue;
      const activity = this.registry.activity(workerId)!;
      if (activity.openTakes === 0 && now - activity.lastSeenAt > this.staleAfterMs) continue;
      rows.push({
        id: workerId,
        status: activity.unhealthy !== undefined ? 'UNHEALTHY' : activity.busy > 0 ? 'RUNNING' : activity.proven ? 'IDLE' : 'INITIALIZING',
        isStale: false,
        version: null,
        gpuCount: 0,
        image: null,
        uptimeSeconds: Math.floor((now - activity.firstSeenAt) / 1000),
        gpuTypeId: null,
        dataCenterId: null,
        startedAt: new Date(activity.firstSeenAt).toISOString(),
        managed: false,
      });
    }
    return rows;
  }

  counts(endpointId: string, endpointVersion = 0): WorkerCounts {
    const counts: WorkerCounts = { idle: 0, initializing: 0, ready: 0, running: 0, throttled: 0, unhealthy: 0 };
    for (const row of this.list(endpointId, endpointVersion)) {
      const key = row.status.toLowerCase() as keyof WorkerCounts;
      counts[key]++;
    }
    counts.ready = counts.idle + counts.running;
    return counts;
  }
}
