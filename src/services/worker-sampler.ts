// On the leader, every --worker-sample-interval-ms: each endpoint's workers by state, recorded so
// the series route can chart them as a history. An endpoint with no workers is recorded once, as
// the sample that says they went (its later passes write nothing), so an idle deployment does
// not fill the table; readers take "no recent sample" as no workers (see workerSeries). Samples
// older than the retention are pruned every few minutes.
import { PeriodicTask, type Scheduler } from '../domain/periodic-task.js';
import type { Logger } from '../domain/logger.js';
import type { Store } from '../store/store.js';
import { WORKER_SAMPLE_RETENTION_MS, type WorkerSample, type WorkerStateCounts } from '../store/worker-sample-store.js';
import { storeErrorFields } from '../store/unavailable.js';

const PRUNE_EVERY_MS = 5 * 60_000;

export interface WorkerSamplerOptions {
  store: Pick<Store, 'listAllEndpoints' | 'workerSamples'>;
  /** The endpoint's workers by state now, as the API lists them. */
  counts: (endpointId: string) => WorkerStateCounts;
  everyMs: number;
  log: Logger;
  now?: () => number;
  scheduler?: Scheduler;
}

export class WorkerSampler {
  private readonly task: PeriodicTask;
  private readonly now: () => number;
  /** Endpoints whose last recorded sample had workers: their drop to none is recorded too. */
  private readonly hadWorkers = new Set<string>();
  private lastPrune = 0;

  constructor(private readonly options: WorkerSamplerOptions) {
    this.now = options.now ?? Date.now;
    this.task = new PeriodicTask({
      run: () => this.pass(),
      everyMs: options.everyMs,
      onError: (err) => options.log.warn(storeErrorFields(err), 'recording workers by state failed; the next pass tries again'),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  }

  start(): void {
    if (this.task.running) return;
    // A new leader records every endpoint's first sample, whatever the former one remembered.
    this.hadWorkers.clear();
    this.task.start({ runNow: true });
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass now (or right after the one under way). */
  runNow(): Promise<void> {
    return this.task.runNow();
  }

  private async pass(): Promise<void> {
    const at = this.now();
    const samples: WorkerSample[] = [];
    for (const endpoint of await this.options.store.listAllEndpoints()) {
      const { running, idle, initializing, throttled, unhealthy } = this.options.counts(endpoint.id);
      const any = running + idle + initializing + throttled + unhealthy > 0;
      if (!any && !this.hadWorkers.has(endpoint.id)) continue;
      samples.push({ endpointId: endpoint.id, at, running, idle, initializing, throttled, unhealthy });
      if (any) this.hadWorkers.add(endpoint.id);
      else this.hadWorkers.delete(endpoint.id);
    }
    await this.options.store.workerSamples.append(samples);
    if (at - this.lastPrune >= PRUNE_EVERY_MS) {
      await this.options.store.workerSamples.prune(at - WORKER_SAMPLE_RETENTION_MS);
      this.lastPrune = at;
    }
  }
}
