// Health checks of load-balancing workers: GET of the health path on the health port.
// 200 is ready, 204 still initializing, anything else or no answer is unhealthy — except before
// a worker was ever ready, when no answer just means it is still booting. Starting workers are
// checked often so a held request is served soon after its worker comes up.
import { request } from 'node:http';
import type { Backend, BackendHealth, Backends } from './http-backends.js';

/** How often a worker that has never been ready is checked. */
const STARTING_INTERVAL_MS = 50;

export interface Verdict {
  health: BackendHealth;
  reason: string | undefined;
}

/** One health check of a worker, answered within timeoutMs. */
export type HealthCheck = (backend: Backend, timeoutMs: number) => Promise<Verdict>;

export interface HealthMonitorOptions {
  intervalMs: number;
  /** The HTTP check by default; tests answer for their workers. */
  check?: HealthCheck;
}

export class HealthMonitor {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly backends: Backends,
    private readonly options: HealthMonitorOptions,
  ) {}

  watch(backend: Backend): void {
    this.schedule(backend, 0);
  }

  unwatch(workerId: string): void {
    clearTimeout(this.timers.get(workerId));
    this.timers.delete(workerId);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(backend: Backend, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => void this.checkAndReschedule(backend), delayMs);
    timer.unref();
    this.timers.set(backend.workerId, timer);
  }

  private async checkAndReschedule(backend: Backend): Promise<void> {
    if (!backend.parked) {
      const verdict = await (this.options.check ?? httpHealthCheck)(backend, Math.max(500, this.options.intervalMs));
      // The worker may have been removed while the check ran.
      if (this.backends.get(backend.workerId) !== backend) return;
      const neverReady = backend.lastReadyAt === null;
      if (neverReady && verdict.health === 'UNHEALTHY') this.backends.setHealth(backend, 'INITIALIZING', verdict.reason);
      else this.backends.setHealth(backend, verdict.health, verdict.reason);
    }
    if (this.timers.has(backend.workerId)) {
      this.schedule(backend, backend.lastReadyAt === null ? STARTING_INTERVAL_MS : this.options.intervalMs);
    }
  }
}

export const httpHealthCheck: HealthCheck = (backend, timeoutMs) => {
  const { host, healthPort } = backend.address;
  return new Promise((resolve) => {
    const req = request({ host, port: healthPort, path: backend.healthPath, method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status === 200) resolve({ health: 'READY', reason: undefined });
      else if (status === 204) resolve({ health: 'INITIALIZING', reason: 'the health check answered 204 (initializing)' });
      else resolve({ health: 'UNHEALTHY', reason: `the health check answered ${status}` });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ health: 'UNHEALTHY', reason: `the health check failed: ${err.message}` }));
    req.end();
  });
};
