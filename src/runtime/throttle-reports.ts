// Why an endpoint's next worker waits for capacity: explained once when placement fails, logged
// once per new reason, and shown in /health and /workers while a worker still waits.
import type { EndpointSpec } from '../domain/endpoint-spec.js';
import type { Logger } from '../domain/logger.js';
import type { CapacityPool } from '../catalog/capacity-pool.js';
import { explainUnplaceable } from '../catalog/placement-explainer.js';

export interface ThrottleReport {
  reason: string;
  since: string;
}

export class ThrottleReports {
  private readonly reports = new Map<string, ThrottleReport>();

  constructor(
    private readonly capacity: CapacityPool,
    private readonly log: Logger,
  ) {}

  unplaced(endpointId: string, placement: EndpointSpec, now: number): void {
    const { reason } = explainUnplaceable(placement, this.capacity, this.capacity.catalog);
    if (this.reports.get(endpointId)?.reason === reason) return;
    this.reports.set(endpointId, { reason, since: new Date(now).toISOString() });
    this.log.warn({ endpointId, reason }, 'no worker can be placed');
  }

  placed(endpointId: string): void {
    this.reports.delete(endpointId);
  }

  /** The report, while the endpoint still has a worker waiting for capacity. */
  of(endpointId: string, stillWaiting: boolean): ThrottleReport | undefined {
    if (!stillWaiting) this.reports.delete(endpointId);
    return this.reports.get(endpointId);
  }
}
