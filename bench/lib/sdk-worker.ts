// Child process of the peers benchmark: a worker built on Gantry's worker SDK (batched takes and
// results), configured by the RunPod worker environment. Each job's input carries its submit time
// on the wall clock; the worker prints the submit-to-start latency of each job, one per line.
import { serve } from '../../src/worker/index.js';

const wallClock = () => performance.timeOrigin + performance.now();
const stopping = new AbortController();
process.on('SIGTERM', () => stopping.abort());
await serve(
  (job) => {
    const { submittedAt } = job.input as { submittedAt?: number };
    if (submittedAt !== undefined) process.stdout.write(`${wallClock() - submittedAt}\n`);
    return { ok: true };
  },
  { concurrency: Number(process.env.WORKER_CONCURRENCY), signal: stopping.signal },
);
