// Scaling simulator: replays a bursty trace through the real scaling policy on a virtual clock
// and compares queue delay and worker-seconds with two baselines: always-max, and a
// Knative-style stable/panic concurrency scaler. Runs in seconds; no real time passes.
// Run: npm run bench:scaling -- [--max 50] [--cold-start 5] [--job 2]
import { parseArgs } from 'node:util';
import { decideScaling, type PolicyWorker } from '../src/domain/scaling-policy.js';
import type { Scaling } from '../src/domain/endpoint-spec.js';
import { percentile } from './lib/measure.js';

const { values: opts } = parseArgs({ options: { max: { type: 'string', default: '50' }, 'cold-start': { type: 'string', default: '5' }, job: { type: 'string', default: '2' }, 'idle-timeout': { type: 'string', default: '5' } } });
const MAX = Number(opts.max);
const COLD_START_MS = Number(opts['cold-start']) * 1000;
const JOB_MS = Number(opts.job) * 1000;
const IDLE_TIMEOUT_S = Number(opts['idle-timeout']);
const STEP_MS = 100;
const TICK_MS = 1000;

/** 60 s idle, 500 jobs within 5 s, 1 job/s for 120 s, 120 s idle. */
function trace(): number[] {
  const arrivals: number[] = [];
  for (let i = 0; i < 500; i++) arrivals.push(60_000 + Math.floor((i * 5000) / 500));
  for (let s = 0; s < 120; s++) arrivals.push(65_000 + 10_000 + s * 1000);
  return arrivals.sort((a, b) => a - b);
}
const END_MS = 60_000 + 5_000 + 10_000 + 120_000 + 120_000;

interface SimWorker { id: string; startedAt: number; readyAt: number; busyUntil: number; idleSince: number | null }
type Scaler = (now: number, queue: number[], workers: SimWorker[], inFlight: number) => { start: number; stop: string[] };

function simulate(scaler: Scaler, alwaysUp = 0) {
  const arrivals = trace();
  const queue: number[] = [];
  let workers: SimWorker[] = Array.from({ length: alwaysUp }, (_, i) => ({ id: `w${i}`, startedAt: 0, readyAt: 0, busyUntil: 0, idleSince: 0 }));
  let next = 0;
  let counter = workers.length;
  let workerMs = 0;
  const delays: number[] = [];
  for (let now = 0; now <= END_MS; now += STEP_MS) {
    while (next < arrivals.length && arrivals[next]! <= now) queue.push(arrivals[next++]!);
    for (const w of workers) {
      if (w.busyUntil <= now && w.idleSince === null) w.idleSince = Math.max(w.busyUntil, w.readyAt);
      if (w.readyAt <= now && w.busyUntil <= now && queue.length > 0) {
        delays.push(now - queue.shift()!);
        w.busyUntil = now + JOB_MS;
        w.idleSince = null;
      }
    }
    if (now % TICK_MS === 0) {
      const inFlight = workers.filter((w) => w.busyUntil > now).length;
      const decision = scaler(now, queue, workers, inFlight);
      for (let i = 0; i < decision.start; i++) workers.push({ id: `w${counter++}`, startedAt: now, readyAt: now + COLD_START_MS, busyUntil: 0, idleSince: null });
      for (const w of workers.filter((x) => decision.stop.includes(x.id))) workerMs += now - w.startedAt;
      workers = workers.filter((w) => !decision.stop.includes(w.id));
    }
  }
  for (const w of workers) workerMs += END_MS - w.startedAt;
  return { p50: percentile(delays, 50) / 1000, p95: percentile(delays, 95) / 1000, workerSeconds: workerMs / 1000, served: delays.length };
}

function policyScaler(scaling: Scaling, idleTimeoutSec: number | null): Scaler {
  return (now, queue, workers, inFlight) => {
    const policyWorkers: PolicyWorker[] = workers.map((w) => ({
      workerId: w.id,
      state: w.readyAt > now ? 'INITIALIZING' : w.busyUntil > now ? 'RUNNING' : 'IDLE',
      busy: w.busyUntil > now ? 1 : 0,
      idleSince: w.readyAt > now || w.busyUntil > now ? null : (w.idleSince ?? now),
      startedAt: w.startedAt,
    }));
    return decideScaling({ now, queued: queue.length, queuedLowPriority: 0, oldestQueuedAt: queue[0] ?? null, inFlight, workers: policyWorkers, min: 0, max: MAX, idleTimeoutSec, scaling, stableWindowMs: IDLE_TIMEOUT_S * 1000 });
  };
}

/** Knative's KPA: average concurrency over a 60 s stable window, a 6 s panic window when demand doubles. */
function knativeScaler(): Scaler {
  const samples: { at: number; concurrency: number }[] = [];
  let panicUntil = 0;
  let lastDemand = 0;
  return (now, queue, workers, inFlight) => {
    samples.push({ at: now, concurrency: queue.length + inFlight });
    const avg = (windowMs: number) => {
      const inWindow = samples.filter((s) => s.at > now - windowMs);
      return inWindow.reduce((sum, s) => sum + s.concurrency, 0) / Math.max(1, inWindow.length);
    };
    const current = workers.length;
    const stable = Math.ceil(avg(60_000));
    const panic = Math.ceil(avg(6_000));
    if (panic >= 2 * Math.max(1, current)) panicUntil = now + 60_000;
    let desired = now < panicUntil ? Math.max(panic, current) : stable;
    if (queue.length + inFlight > 0) lastDemand = now;
    if (desired === 0 && now - lastDemand < 30_000) desired = Math.min(current, 1);
    desired = Math.min(MAX, desired);
    if (desired > current) return { start: desired - current, stop: [] };
    const idle = workers.filter((w) => w.readyAt <= now && w.busyUntil <= now).map((w) => w.id);
    return { start: 0, stop: idle.slice(0, current - desired) };
  };
}

const results = [
  ['always max', simulate(() => ({ start: 0, stop: [] }), MAX)],
  ['QUEUE_DELAY (1 s)', simulate(policyScaler({ type: 'QUEUE_DELAY', queueDelay: 1 }, IDLE_TIMEOUT_S))],
  ['REQUEST_COUNT (1)', simulate(policyScaler({ type: 'REQUEST_COUNT', requestCount: 1 }, null))],
  ['Knative stable/panic', simulate(knativeScaler())],
] as const;

console.log(`trace: 60 s idle, 500 jobs in 5 s, 1 job/s for 120 s, 120 s idle; ${JOB_MS / 1000} s jobs, ${COLD_START_MS / 1000} s cold start, max ${MAX}, idle timeout ${IDLE_TIMEOUT_S} s\n`);
console.log(`${'strategy'.padEnd(24)}${'p50 delay s'.padStart(12)}${'p95 delay s'.padStart(12)}${'worker-s'.padStart(10)}${'served'.padStart(8)}`);
for (const [name, r] of results) console.log(`${name.padEnd(24)}${r.p50.toFixed(1).padStart(12)}${r.p95.toFixed(1).padStart(12)}${r.workerSeconds.toFixed(0).padStart(10)}${String(r.served).padStart(8)}`);
const base = results[0][1];
console.log('\ntarget: p95 within 1.5x of always-max, at most 40% of its worker-seconds');
for (const [name, r] of results.slice(1)) {
  const ok = r.p95 <= 1.5 * base.p95 && r.workerSeconds <= 0.4 * base.workerSeconds;
  console.log(`${name.padEnd(24)} p95 ${(r.p95 / base.p95).toFixed(2)}x, worker-seconds ${((100 * r.workerSeconds) / base.workerSeconds).toFixed(0)}% -> ${ok ? 'meets' : 'misses'}`);
}
