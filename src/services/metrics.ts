// Prometheus metrics: queue depth and oldest wait per endpoint, workers by state, jobs by
// outcome, delay and execution time histograms, and load-balanced requests by status, their
// duration, and those in flight or held. Gauges are read from the store at scrape
// time, so they cost nothing between scrapes.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/store.js';
import { QUEUE_STATS_CAP, type JobState } from '../store/job-store.js';
import type { WorkerCounts } from '../runtime/worker-registry.js';

/** Whose series a scrape may see: the operator's (every account) or one account's endpoints. */
export type MetricsScope = 'all' | { endpointIds: ReadonlySet<string> };

const ENDPOINT_LABEL = /[{,]endpoint="([^"]*)"/;

/** Requests a load-balancing endpoint's workers are serving, and those waiting for room. */
export type LbDemand = (endpointId: string) => { inFlight: number; held: number };

const SECONDS_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];

/**
 * How often the event loop's lag is sampled. prom-client's 10 ms woke an idle server a hundred
 * times a second, close to half of what it spent doing nothing (bench:idle); ten samples a second
 * still give a scrape every 15 s some 150 of them.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export class GantryMetrics {
  readonly registry = new Registry();
  private readonly finished: Counter<'endpoint' | 'status'>;
  private readonly delay: Histogram<'endpoint'>;
  private readonly execution: Histogram<'endpoint'>;
  private readonly lbRequests: Counter<'endpoint' | 'code'>;
  private readonly lbDuration: Histogram<'endpoint'>;

  constructor(store: Store, workerCounts: (endpointId: string) => WorkerCounts, lbDemand: LbDemand, now: () => number = Date.now) {
    collectDefaultMetrics({ register: this.registry, prefix: 'gantry_process_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.finished = new Counter({
      name: 'gantry_jobs_finished_total',
      help: 'Jobs that reached a terminal status, by status',
      labelNames: ['endpoint', 'status'],
      registers: [this.registry],
    });
    this.delay = new Histogram({
      name: 'gantry_job_delay_seconds',
      help: 'Time jobs waited in the queue before a worker took them',
      labelNames: ['endpoint'],
      buckets: SECONDS_BUCKETS,
      registers: [this.registry],
    });
    this.execution = new Histogram({
      name: 'gantry_job_execution_seconds',
      help: 'Time from a worker taking a job to its result',
      labelNames: ['endpoint'],
      buckets: SECONDS_BUCKETS,
      registers: [this.registry],
    });
    new Gauge({
      name: 'gantry_queue_depth',
      help: `Jobs waiting in the queue (each priority counted up to ${QUEUE_STATS_CAP})`,
      labelNames: ['endpoint'],
      registers: [this.registry],
      async collect() {
        this.reset();
        // The autoscaler's capped counts: every job status a scrape would also count reads the
        // endpoint's whole retained history (a million finished jobs: 0.2 s of SQLite per endpoint).
        for (const endpoint of await store.listAllEndpoints()) {
          const { queued, queuedLowPriority } = await store.jobs.queueStats(endpoint.id);
          this.set({ endpoint: endpoint.id }, queued + queuedLowPriority);
        }
      },
    });
    new Gauge({
      name: 'gantry_queue_oldest_wait_seconds',
      help: 'How long the oldest normal-priority queued job has waited',
      labelNames: ['endpoint'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const endpoint of await store.listAllEndpoints()) {
          const oldest = await store.jobs.oldestQueuedAt(endpoint.id);
          this.set({ endpoint: endpoint.id }, oldest === null ? 0 : Math.max(0, now() - oldest) / 1000);
        }
      },
    });
    this.lbRequests = new Counter({
      name: 'gantry_lb_requests_total',
      help: 'Requests to load-balancing endpoints, by the status code answered',
      labelNames: ['endpoint', 'code'],
      registers: [this.registry],
    });
    this.lbDuration = new Histogram({
      name: 'gantry_lb_request_seconds',
      help: 'Time from a load-balanced request arriving to the end of its answer, time held included',
      labelNames: ['endpoint'],
      buckets: SECONDS_BUCKETS,
      registers: [this.registry],
    });
    new Gauge({
      name: 'gantry_lb_requests_active',
      help: 'Load-balanced requests being served by a worker (in_flight) or waiting for one with room (held)',
      labelNames: ['endpoint', 'phase'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const endpoint of await store.listAllEndpoints()) {
          if (endpoint.spec.type !== 'LOAD_BALANCER') continue;
          const { inFlight, held } = lbDemand(endpoint.id);
          this.set({ endpoint: endpoint.id, phase: 'in_flight' }, inFlight);
          this.set({ endpoint: endpoint.id, phase: 'held' }, held);
        }
      },
    });
    new Gauge({
      name: 'gantry_workers',
      help: 'Workers by state',
      labelNames: ['endpoint', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const endpoint of await store.listAllEndpoints()) {
          const counts = workerCounts(endpoint.id);
          for (const state of ['idle', 'initializing', 'running', 'throttled', 'unhealthy'] as const) {
            this.set({ endpoint: endpoint.id, state }, counts[state]);
          }
        }
      },
    });
  }

  /**
   * The exposition text for a scrape: every series for the operator, or for an account only the
   * series of its own endpoints (process figures describe the whole server, so they are left out).
   */
  async exposition(scope: MetricsScope): Promise<string> {
    const text = await this.registry.metrics();
    if (scope === 'all') return text;
    return text
      .split('\n')
      .filter((line) => {
        const name = /^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)?.[1];
        if (name === undefined || name.startsWith('gantry_process_')) return false;
        if (line.startsWith('#')) return true;
        const endpoint = ENDPOINT_LABEL.exec(line)?.[1];
        return endpoint !== undefined && scope.endpointIds.has(endpoint);
      })
      .join('\n')
      .concat('\n');
  }

  /** Only requests admitted to an existing endpoint are counted, so callers cannot invent label values. */
  lbRequestFinished(endpointId: string, status: number, seconds: number): void {
    this.lbRequests.inc({ endpoint: endpointId, code: String(status) });
    this.lbDuration.observe({ endpoint: endpointId }, seconds);
  }

  jobFinished(job: JobState): void {
    this.finished.inc({ endpoint: job.endpointId, status: job.status });
    if (job.startedAt !== null) {
      this.delay.observe({ endpoint: job.endpointId }, (job.startedAt - job.submittedAt) / 1000);
      if (job.completedAt !== null) this.execution.observe({ endpoint: job.endpointId }, (job.completedAt - job.startedAt) / 1000);
    }
  }
}
