// Child process of the peers benchmark: a worker built on Gantry's worker SDK (batched takes and
// results), configured by the RunPod worker environment. Each job's input carries its submit time
// on the wall clock; the worker prints the submit-to-start latency of each job, one per line,
// gathered and written every few milliseconds (a write per job would cost the worker more than
// the rest of its work, and the other rows record their latencies without a write).
import { serve } from '../../src/worker/index.js';

const FLUSH_MS = 20;
const wallClock = () => performance.timeOrigin + performance.now();
let pending = '';
const flush = () => {
  if (pending !== '') process.stdout.write(pending);
  pending = '';
};
const flusher = setInterval(flush, FLUSH_MS);
const stopping = new AbortController();
process.on('SIGTERM', () => stopping.abort());
await serve(
  (job) => {
    const { submittedAt } = job.input as { submittedAt?: number };
    if (submittedAt !== undefined) pending += `${wallClock() - submittedAt}\n`;
    return { ok: true };
  },
  { concurrency: Number(process.env.WORKER_CONCURRENCY), signal: stopping.signal },
);
clearInterval(flusher);
flush();
