// A virtual-clock endpoint for the scaling simulator: a FIFO queue, workers that boot for a
// cold start and then run one job at a time, and a scaler asked once per tick. No real time
// passes; a 5-minute trace replays in well under a second.
import { percentile } from './measure.js';
import type { Trace } from './scaling-trace.js';

export interface SimWorker {
  id: string;
  startedAt: number;
  /** When its cold start ends and it can take jobs. */
  readyAt: number;
  /** When its current job ends (<= now: no job). */
  busyUntil: number;
  /** When it last became free; null while it has a job or has never been up. */
  idleSince: number | null;
}

export interface SimView {
  now: number;
  /** Submit times of the waiting jobs, oldest first. */
  queue: readonly number[];
  workers: readonly SimWorker[];
  inFlight: number;
}

export type Scaler = (view: SimView) => { start: number; stop: string[] };

export interface SimSettings {
  coldStartMs: number;
  jobMs: number;
  max: number;
  /** How often the scaler is asked. */
  tickMs: number;
  /** Resolution of job dispatch and completion between ticks. */
  stepMs: number;
}

export interface SimResult {
  p50DelayMs: number;
  p95DelayMs: number;
  /** Sum of worker lifetimes, booting included. */
  workerSeconds: number;
  served: number;
  starts: number;
  peak: number;
}

export function simulate(trace: Trace, settings: SimSettings, scaler: Scaler, prewarmed = 0): SimResult {
  const queue: number[] = [];
  let workers: SimWorker[] = Array.from({ length: prewarmed }, (_, i) => ({
    id: `w${i}`,
    startedAt: 0,
    readyAt: 0,
    busyUntil: 0,
    idleSince: 0,
  }));
  let starts = 0;
  let peak = workers.length;
  let workerMs = 0;
  let next = 0;
  const delays: number[] = [];

  for (let now = 0; now <= trace.endMs; now += settings.stepMs) {
    while (next < trace.arrivals.length && trace.arrivals[next]! <= now) queue.push(trace.arrivals[next++]!);
    for (const w of workers) {
      if (w.readyAt > now || w.busyUntil > now) continue;
      w.idleSince ??= Math.max(w.readyAt, w.busyUntil);
      const submittedAt = queue.shift();
      if (submittedAt === undefined) continue;
      delays.push(now - submittedAt);
      w.busyUntil = now + settings.jobMs;
      w.idleSince = null;
    }
    if (now % settings.tickMs !== 0) continue;

    const inFlight = workers.filter((w) => w.busyUntil > now).length;
    const decision = scaler({ now, queue, workers, inFlight });
    for (const id of decision.stop) {
      const w = workers.find((x) => x.id === id);
      if (!w) continue;
      if (w.busyUntil > now) throw new Error(`scaler stopped ${id} while it ran a job at ${now} ms`);
      workerMs += now - w.startedAt;
    }
    workers = workers.filter((w) => !decision.stop.includes(w.id));
    for (let i = 0; i < decision.start; i++) {
      workers.push({ id: `w${prewarmed + starts++}`, startedAt: now, readyAt: now + settings.coldStartMs, busyUntil: 0, idleSince: null });
    }
    if (workers.length > settings.max) throw new Error(`${workers.length} workers at ${now} ms, above max ${settings.max}`);
    peak = Math.max(peak, workers.length);
  }
  for (const w of workers) workerMs += trace.endMs - w.startedAt;
  return {
    p50DelayMs: percentile(delays, 50),
    p95DelayMs: percentile(delays, 95),
    workerSeconds: workerMs / 1000,
    served: delays.length,
    starts,
    peak,
  };
}
