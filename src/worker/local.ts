// Local mode: run a handler once on a test input and print the result, with no server.
import { WorkerConfigError } from './environment.js';
import { runHandler } from './result.js';
import type { Handler } from './types.js';

export interface LocalJob {
  input: unknown;
  s3Config?: unknown;
  /** Given on the command line or in RUNPOD_TEST_INPUT (not by the program itself). */
  fromOutside: boolean;
}

function argValue(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at >= 0) return argv[at + 1] ?? '';
  return argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** `--test_input '<json>'` (or `--test_input=<json>`) wins over RUNPOD_TEST_INPUT; both are `{"input": ...}`. */
export function localJob(testInput: unknown, env: Record<string, string | undefined>, argv: string[]): LocalJob | undefined {
  if (testInput !== undefined) return { input: testInput, fromOutside: false };
  const fromArgs = argValue(argv, '--test_input');
  const source = fromArgs !== undefined ? '--test_input' : 'RUNPOD_TEST_INPUT';
  const raw = fromArgs ?? env.RUNPOD_TEST_INPUT;
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new WorkerConfigError(`${source} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || !('input' in parsed)) {
    throw new WorkerConfigError(`${source} must be a JSON object of the form {"input": ...}`);
  }
  const { input, s3Config } = parsed as { input: unknown; s3Config?: unknown };
  return { input, ...(s3Config === undefined ? {} : { s3Config }), fromOutside: true };
}

/**
 * Prints `{"output": ...}` or `{"error": ...}` (a stream prints the array of its chunks) on stdout
 * and progress updates on stderr. A failure from the command line sets exit code 1, for scripts.
 */
export async function runLocally(handler: Handler, job: LocalJob): Promise<void> {
  const signal = new AbortController().signal;
  const outcome = await runHandler(
    handler,
    {
      id: 'local_test',
      input: job.input,
      ...(job.s3Config === undefined ? {} : { s3Config: job.s3Config }),
      signal,
      progress: async (update) => void process.stderr.write(`progress: ${JSON.stringify(update)}\n`),
    },
    { aggregate: true, shouldGoOn: () => true, onChunk: async () => undefined },
  );
  process.stdout.write(`${JSON.stringify(outcome.body)}\n`);
  if ('error' in outcome.body && job.fromOutside) process.exitCode = 1;
}
