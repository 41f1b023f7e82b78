// An example worker whose input decides what it does, so it can show (and test) every part of
// the protocol:
//   {echo: X}                 returns X (with no known key, returns the input itself)
//   {sleepMs: n}              sleeps n ms first, stopping early when the job is stopped
//   {fail: "msg"}             throws: the job FAILS with "msg"
//   {errorObject: "msg"}      returns {error: "msg"}: the job FAILS too
//   {stream: n, chunk?: s}    streams n chunks {i, text: s}; with sleepMs, sleeps before each one
//   {progress: n}             reports n progress updates {step, of} before anything else
//   {outputBytes: n}          returns a string of n bytes
//   {exitProcess: code}       exits the process mid-job (crash tests)
//   {refresh: true}           returns {echo} with refresh_worker: the worker is recycled after it
// Run it with `node --import tsx examples/echo-worker.ts` (or built, dist/examples/echo-worker.js)
// in the environment `gantry worker-env` prints, or locally with `--test_input '{"input": {...}}'`.
// WORKER_CONCURRENCY sets how many jobs it runs at once (default 1).
import { serve, type WorkerJob } from '../src/worker/index.js';

interface EchoInput {
  echo?: unknown;
  sleepMs?: number;
  fail?: string;
  errorObject?: string;
  stream?: number;
  chunk?: string;
  progress?: number;
  outputBytes?: number;
  exitProcess?: number;
  refresh?: boolean;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

async function* chunks(input: EchoInput, count: number, signal: AbortSignal) {
  for (let i = 0; i < count && !signal.aborted; i++) {
    if (input.sleepMs) await sleep(input.sleepMs, signal);
    if (!signal.aborted) yield { i, text: input.chunk ?? 'token' };
  }
}

async function respond(job: WorkerJob, input: EchoInput): Promise<unknown> {
  // Progress first, so it shows while the job then sleeps.
  const steps = input.progress ?? 0;
  for (let step = 1; step <= steps; step++) await job.progress({ step, of: steps });
  if (input.sleepMs) await sleep(input.sleepMs, job.signal);
  if (job.signal.aborted) return undefined;
  if (input.fail !== undefined) throw new Error(input.fail);
  if (input.errorObject !== undefined) return { error: input.errorObject };
  if (input.outputBytes !== undefined) return 'x'.repeat(input.outputBytes);
  if (input.refresh) return { echo: input.echo ?? null, refresh_worker: true };
  return 'echo' in input ? input.echo : input;
}

function handler(job: WorkerJob) {
  const input = (job.input ?? {}) as EchoInput;
  if (input.exitProcess !== undefined) process.exit(input.exitProcess);
  if (input.stream !== undefined) return chunks(input, input.stream, job.signal);
  return respond(job, input);
}

// Only this program, not the library, turns SIGTERM/SIGINT into a graceful stop: no new jobs,
// running ones finish, then it exits. A second signal ends it at once.
const stop = new AbortController();
for (const name of ['SIGTERM', 'SIGINT'] as const) {
  process.once(name, () => {
    stop.abort();
    process.once(name, () => process.exit(1));
  });
}
await serve(handler, { concurrency: Number(process.env.WORKER_CONCURRENCY || 1), signal: stop.signal });
