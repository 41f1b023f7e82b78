// SDK drain benchmark: a backlog of queued jobs, then one worker process on Gantry's worker SDK
// (bench/lib/sdk-worker.ts) takes and completes them with no producer running. It shows how fast
// one worker empties a queue: the SDK's take-and-report cycle with the server otherwise idle.
// Run: npm run bench:sdk-drain -- [--jobs 20000] [--concurrency 8] [--repeat 3]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { cpuSeconds, median } from './lib/measure.js';
import { call, requestCount, startTarget, stopTarget, type Target } from './lib/queue-load.js';
import { sdkFlowSystem } from './lib/sdk-flow.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '3' },
  },
});
const JOBS = Number(opts.jobs);
const CONCURRENCY = Number(opts.concurrency);
const SUBMITTERS = 64;

async function queueBacklog(t: Target, jobs: number): Promise<void> {
  let left = jobs;
  await Promise.all(
    Array.from({ length: SUBMITTERS }, async (_, k) => {
      // The SDK benchmark worker reports each job's start, which needs the submit time.
      while (left-- > 0) await call(t, k, 'POST', '/run', t.apiKey, { input: { submittedAt: performance.timeOrigin + performance.now() } });
    }),
  );
}

interface Drain {
  jobsPerSecond: number;
  serverCpuMsPerJob: number;
  workerCpuMsPerJob: number;
  /** HTTP requests the worker made per job (takes, results, pings). */
  requestsPerJob: number;
}

/** One run on a fresh server: queue the backlog, then time the worker emptying it. */
async function drainOnce(): Promise<Drain> {
  const target = await startTarget('gantry', 'bench/lib/gantry-server.ts', true);
  const system = sdkFlowSystem(target, CONCURRENCY);
  try {
    await queueBacklog(target, JOBS);
    // Timed from the first job's start: the worker process's own start (node, its modules) is not the drain's.
    let first: { at: number; serverCpu: number; workerCpu: number } | undefined;
    const requestsBefore = await requestCount(target.nodes[0]!);
    let completed = 0;
    await system.runWorkers(CONCURRENCY, {
      jobs: JOBS,
      started: () => {
        const [server, worker] = system.cpuPids() as [number, number];
        first ??= { at: performance.now(), serverCpu: cpuSeconds(server), workerCpu: cpuSeconds(worker) };
      },
      completed: () => void completed++,
      stopped: () => completed >= JOBS,
    });
    const [server, worker] = system.cpuPids() as [number, number];
    const seconds = (performance.now() - first!.at) / 1000;
    // Besides the worker's, this counts the benchmark's few health polls (one per 10 ms).
    const requests = (await requestCount(target.nodes[0]!)) - requestsBefore;
    return {
      jobsPerSecond: JOBS / seconds,
      serverCpuMsPerJob: ((cpuSeconds(server) - first!.serverCpu) * 1000) / JOBS,
      workerCpuMsPerJob: ((cpuSeconds(worker) - first!.workerCpu) * 1000) / JOBS,
      requestsPerJob: requests / JOBS,
    };
  } finally {
    system.close();
    await stopTarget(target);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`backlog ${JOBS} jobs, one SDK worker with concurrency ${CONCURRENCY}, ${opts.repeat} runs\n`);
const runs: Drain[] = [];
for (let r = 0; r < Number(opts.repeat); r++) {
  const run = await drainOnce();
  runs.push(run);
  console.log(
    `run ${r + 1}: ${run.jobsPerSecond.toFixed(0)} jobs/s, server CPU ${run.serverCpuMsPerJob.toFixed(3)} ms/job, worker CPU ${run.workerCpuMsPerJob.toFixed(3)} ms/job, ${run.requestsPerJob.toFixed(3)} requests/job`,
  );
}
const middle = median(runs.map((r) => r.jobsPerSecond));
const m = runs.find((r) => r.jobsPerSecond === middle)!;
console.log(
  `\nmedian run: ${m.jobsPerSecond.toFixed(0)} jobs/s, server CPU ${m.serverCpuMsPerJob.toFixed(3)} ms/job, worker CPU ${m.workerCpuMsPerJob.toFixed(3)} ms/job, ${m.requestsPerJob.toFixed(3)} requests/job`,
);
process.exit(0);
