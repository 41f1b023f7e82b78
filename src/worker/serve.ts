// `serve(handler)`: a RunPod-protocol worker, or a one-off local run when given a test input.
import { readEnvironment, WorkerConfigError } from './environment.js';
import { localJob, runLocally } from './local.js';
import { WorkerLoop } from './worker-loop.js';
import type { Handler, ServeOptions } from './types.js';

const toStderr = (line: string) => void process.stderr.write(`[gantry-worker] ${line}\n`);

export async function serve(handler: Handler, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const local = localJob(options.testInput, env, process.argv);
  if (local) return runLocally(handler, local);

  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new WorkerConfigError(`concurrency must be a positive integer, not ${concurrency}`);
  const loop = new WorkerLoop(handler, readEnvironment(env), {
    concurrency,
    returnAggregateStream: options.returnAggregateStream ?? false,
    log: options.log ?? toStderr,
  });
  if (options.signal?.aborted) loop.stop();
  options.signal?.addEventListener('abort', () => loop.stop(), { once: true });
  await loop.run();
}
