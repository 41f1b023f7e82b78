// Gantry's own worker SDK as a peer in the peers benchmark: one worker process running the
// benchmark's concurrency, producers submitting over HTTP. Start latencies come from the worker's
// output; once every job has started, the endpoint's health figures say when all are completed
// (asked only then: counting jobs under a backlog would cost the server more than the work).
import { spawn, type ChildProcess } from 'node:child_process';
import { submitOverHttp, type FlowSystem } from './job-flow.js';
import { profileFlags } from './measure.js';
import { call, type Target } from './queue-load.js';

const POLL_MS = 10;

export function sdkFlowSystem(t: Target, workers: number): FlowSystem & { close(): void } {
  const url = t.nodes[0]!.url;
  let worker: ChildProcess | undefined;
  let onLatency: (ms: number) => void = () => undefined;
  let startedJobs = 0;
  /** The server is fresh with the first run and every run's jobs are its own: its completed count goes up by exactly these. */
  let completedInEarlierRuns = 0;
  const start = () => {
    const base = `${url}/v2/${t.endpointId}`;
    worker = spawn(process.execPath, [...profileFlags(), '--import', 'tsx', 'bench/lib/sdk-worker.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=none`,
        RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=none`,
        RUNPOD_POD_ID: 'sdk-1',
        RUNPOD_AI_API_KEY: t.workerKey,
        WORKER_CONCURRENCY: String(workers),
      },
    });
    let buffer = '';
    worker.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        startedJobs++;
        onLatency(Number(line));
      }
    });
  };
  const completedSoFar = async () => {
    const health = await call(t, 0, 'GET', '/health', t.apiKey);
    return (health.json.jobs as { completed: number }).completed;
  };
  return {
    submit: (producer, _submittedAt, count) =>
      submitOverHttp(t, producer, { submittedAt: performance.timeOrigin + performance.now() }, count),
    runWorkers: async (_workers, hooks) => {
      onLatency = (ms) => hooks.started(performance.now() - ms);
      if (!worker) start();
      // Both baselines are taken before anything is awaited: the producers start at once, and a
      // worker kept from the last run starts their jobs meanwhile.
      const before = completedInEarlierRuns;
      const startedBefore = startedJobs;
      let counted = 0;
      while (!hooks.stopped()) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        // Until the last job has started, every started one but the last few is done.
        const done = startedJobs - startedBefore < hooks.jobs ? 0 : (await completedSoFar()) - before;
        for (; counted < done; counted++) hooks.completed();
      }
      completedInEarlierRuns = before + counted;
    },
    wake: async () => undefined,
    // The server, the worker, then the database's processes (PostgreSQL's), in that order.
    cpuPids: () => [...t.nodes.map((n) => n.child.pid!), ...(worker?.pid ? [worker.pid] : []), ...t.cpuPids()],
    close: () => worker?.kill('SIGTERM'),
  };
}
