// An example worker whose input decides what it does, so it can show (and test) every part of
// the protocol: {echo}, {sleepMs}, {fail}, {errorObject}, {stream, chunk?}, {progress},
// {outputBytes}, {exitProcess}.
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
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

async function* chunks(count: number, text: string, signal: AbortSignal) {
  for (let i = 0; i < count && !signal.aborted; i++) yield { i, text };
}

function handler(job: WorkerJob) {
  const input = (job.input ?? {}) as EchoInput;
  if (input.exitProcess !== undefined) process.exit(input.exitProcess);
  if (input.stream !== undefined) return chunks(input.stream, input.chunk ?? 'token', job.signal);
  return (async () => {
    // Progress first, so it shows while the job then sleeps.
    for (let i = 1; i <= (input.progress ?? 0); i++) await job.progress({ step: i, of: input.progress });
    if (input.sleepMs) await sleep(input.sleepMs, job.signal);
    if (input.fail !== undefined) throw new Error(input.fail);
    if (input.errorObject !== undefined) return { error: input.errorObject };
    if (input.outputBytes !== undefined) return 'x'.repeat(input.outputBytes);
    return input.echo ?? input;
  })();
}

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
await serve(handler, { concurrency: Number(process.env.WORKER_CONCURRENCY ?? 1), signal: stop.signal, log: (line) => process.stderr.write(`${line}\n`) });
