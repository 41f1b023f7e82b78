// What the worker runtime tells the balancer about load-balancing workers (started, stopped,
// frozen, thawed) and what it reads back (their health, load and the requests waiting).
import { Backends, type Backend } from './http-backends.js';
import { HealthMonitor, type HealthCheck } from './http-health-monitor.js';
import type { HttpAddress } from '../domain/workers.js';

export class BalancerPool {
  readonly backends: Backends;
  private readonly monitor: HealthMonitor;

  constructor(options: { healthIntervalMs: number; healthCheck?: HealthCheck }, now: () => number = Date.now) {
    this.backends = new Backends(now);
    this.monitor = new HealthMonitor(this.backends, {
      intervalMs: options.healthIntervalMs,
      ...(options.healthCheck ? { check: options.healthCheck } : {}),
    });
  }

  add(endpointId: string, workerId: string, address: HttpAddress, healthPath: string): void {
    this.monitor.watch(this.backends.add(endpointId, workerId, address, healthPath));
  }

  remove(workerId: string): void {
    this.monitor.unwatch(workerId);
    this.backends.remove(workerId);
  }

  park(workerId: string): void {
    this.backends.setParked(workerId, true);
  }

  unpark(workerId: string): void {
    this.backends.setParked(workerId, false);
  }

  get(workerId: string): Backend | undefined {
    return this.backends.get(workerId);
  }

  demand(endpointId: string): { inFlight: number; held: number } {
    return this.backends.demand(endpointId);
  }

  onHeld(listener: (endpointId: string) => void): () => void {
    return this.backends.onHeld(listener);
  }

  close(): void {
    this.monitor.close();
  }
}
