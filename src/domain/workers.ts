// Workers as every layer sees them: where a load-balancing worker is reached, the states the
// API reports, a worker's row in listings, and the rows replicas share with each other.

export interface HttpPorts {
  port: number;
  healthPort: number;
}

/** Where Gantry reaches a load-balancing worker's HTTP servers. */
export interface HttpAddress extends HttpPorts {
  host: string;
}

export type WorkerState = 'INITIALIZING' | 'IDLE' | 'RUNNING' | 'THROTTLED' | 'UNHEALTHY';

export interface WorkerRow {
  id: string;
  status: WorkerState;
  isStale: boolean;
  version: number | null;
  gpuCount: number;
  image: string | null;
  uptimeSeconds: number | null;
  gpuTypeId: string | null;
  dataCenterId: string | null;
  startedAt: string | null;
  managed: boolean;
  /** While a worker starts: what the provider is doing ("pulling image x: 40%"). */
  statusMessage?: string;
}

export interface LocalWorkerRow {
  endpointId: string;
  row: WorkerRow;
}

export interface PeerWorker extends WorkerRow {
  /** The address of the replica that runs the worker (for its logs). */
  replicaUrl: string;
  /**
   * When, by the database's clock, the other replica measured the row's uptime: the uptime now is
   * that plus the time since by the cluster's clock, whatever either machine's own says.
   */
  measuredAtMs: number;
}

export interface PeerDirectory {
  of(endpointId: string): PeerWorker[];
  find(endpointId: string, workerId: string): PeerWorker | undefined;
}
