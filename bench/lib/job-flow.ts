// The peers benchmark's workload: producers submit small jobs without waiting for them, workers
// take and complete them, until every job is done. Each job carries the time it was submitted,
// so the worker that starts it gives the submit-to-start latency. One loop shape for every
// system: `FlowSystem` says how a system submits, takes and completes.
import { cpuSeconds, ms } from './measure.js';
import { call, type Json, type Target } from './queue-load.js';

export interface FlowSettings {
  jobs: number;
  producers: number;
  workers: number;
  /** Jobs in each submit request of a producer (1: one request per job). */
  submitBatch: number;
}

export interface FlowFigures {
  jobsPerSecond: number;
  /** Server-side CPU (the processes `cpuPids` names) per job. */
  serverCpuMsPerJob: number;
  /** This process's CPU per job: the load generator and, for in-process workers, the workers. */
  clientCpuMsPerJob: number;
  /** Submit-to-start, ms; empty when the system does not hand back what was submitted. */
  latencies: number[];
}

/** What a worker reports: a job started (with its submit time, if the system hands it back), a job completed. */
export interface WorkerHooks {
  /** Jobs in this run. */
  jobs: number;
  started(submittedAt: number | undefined): void;
  completed(): void;
  /** Workers stop once this holds. */
  stopped(): boolean;
}

/** How a system submits jobs and runs workers that take and complete them. */
export interface FlowSystem {
  /** Submits `count` jobs in one request (or one call of the system's client). */
  submit(producer: number, submittedAt: number, count: number): Promise<void>;
  runWorkers(workers: number, hooks: WorkerHooks): Promise<void>;
  /** Wakes workers waiting for a job, so they see the stop. */
  wake(workers: number): Promise<void>;
  /** Processes whose CPU is the system's. */
  cpuPids(): number[];
}

const now = () => performance.now();

export async function flow(system: FlowSystem, s: FlowSettings): Promise<FlowFigures> {
  let submitted = 0;
  let completed = 0;
  const latencies: number[] = [];
  let finish!: () => void;
  const allDone = new Promise<void>((resolve) => (finish = resolve));
  const serverCpu = () => system.cpuPids().reduce((sum, pid) => sum + cpuOrZero(pid), 0);
  const serverBefore = serverCpu();
  const clientBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const workers = system.runWorkers(s.workers, {
    jobs: s.jobs,
    started: (submittedAt) => {
      if (submittedAt !== undefined && latencies.length < s.jobs) latencies.push(now() - submittedAt);
    },
    completed: () => {
      if (++completed === s.jobs) finish();
    },
    stopped: () => completed >= s.jobs,
  });
  await Promise.all(
    Array.from({ length: s.producers }, async (_, p) => {
      while (submitted < s.jobs) {
        const count = Math.min(s.submitBatch, s.jobs - submitted);
        submitted += count;
        await system.submit(p, now(), count);
      }
    }),
  );
  await allDone;
  const seconds = ms(started) / 1000;
  const server = serverCpu() - serverBefore;
  const client = process.cpuUsage(clientBefore);
  await system.wake(s.workers);
  await workers;
  return {
    jobsPerSecond: s.jobs / seconds,
    serverCpuMsPerJob: (server * 1000) / s.jobs,
    clientCpuMsPerJob: (client.user + client.system) / 1000 / s.jobs,
    latencies,
  };
}

function cpuOrZero(pid: number): number {
  try {
    return cpuSeconds(pid);
  } catch {
    return 0; // a database backend that ended meanwhile
  }
}

/** Submits `count` jobs with this input: one `/run`, or one `/run-batch` holding them all. */
export async function submitOverHttp(t: Target, producer: number, input: Record<string, unknown>, count: number): Promise<void> {
  const answer =
    count === 1
      ? await call(t, producer, 'POST', '/run', t.apiKey, { input })
      : await call(t, producer, 'POST', '/run-batch', t.apiKey, { jobs: Array.from({ length: count }, () => ({ input })) });
  if (answer.status !== 200) throw new Error(`a submit answered ${answer.status}: ${JSON.stringify(answer.json)}`);
}

/**
 * A queue served over HTTP with the RunPod worker protocol (Gantry, or the echo server): `/run`,
 * then `job-take` (or `job-take-batch` when `batch` > 1) and `job-done` per job.
 */
export function httpFlowSystem(t: Target, batch: number): FlowSystem {
  return {
    submit: (producer, submittedAt, count) => submitOverHttp(t, producer, { submittedAt }, count),
    runWorkers: async (workers, hooks) => {
      await Promise.all(
        Array.from({ length: workers }, async (_, w) => {
          while (!hooks.stopped()) {
            const path = batch > 1 ? `/job-take-batch/w${w}?batch_size=${batch}` : `/job-take/w${w}`;
            const taken = await call(t, w, 'GET', path, t.workerKey);
            if (taken.status !== 200) continue;
            for (const job of (Array.isArray(taken.json) ? taken.json : [taken.json]) as Json[]) {
              const input = job.input as { submittedAt?: number; drain?: boolean } | undefined;
              if (!input?.drain) hooks.started(input?.submittedAt);
              await call(t, w, 'POST', `/job-done/w${w}/${job.id}?isStream=false`, t.workerKey, { output: { ok: true } });
              if (!input?.drain) hooks.completed();
            }
          }
        }),
      );
    },
    wake: async (workers) => {
      await Promise.all(
        Array.from({ length: workers * batch }, (_, i) => call(t, i, 'POST', '/run', t.apiKey, { input: { drain: true } })),
      );
    },
    cpuPids: () => [...t.nodes.map((n) => n.child.pid!), ...t.cpuPids()],
  };
}
