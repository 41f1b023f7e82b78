// Local mode: run a handler once on a test input and print the result, with no server.
import type { Handler } from './serve.js';

/** `--test_input '<json>'` on the command line, or RUNPOD_TEST_INPUT, both `{"input": ...}`. */
export function localInput(env: Record<string, string | undefined>, argv: string[]): unknown {
  const flag = argv.indexOf('--test_input');
  const raw = flag >= 0 ? argv[flag + 1] : env.RUNPOD_TEST_INPUT;
  if (raw === undefined) return undefined;
  const parsed = JSON.parse(raw) as { input?: unknown };
  return typeof parsed === 'object' && parsed !== null && 'input' in parsed ? parsed.input : parsed;
}

export async function runLocally(handler: Handler, input: unknown): Promise<void> {
  const controller = new AbortController();
  const job = { id: 'local-test', input, signal: controller.signal, progress: async (update: unknown) => void process.stderr.write(`progress: ${JSON.stringify(update)}\n`) };
  let line: string;
  try {
    const result = handler(job);
    if (typeof result === 'object' && result !== null && Symbol.asyncIterator in result) {
      const chunks: unknown[] = [];
      for await (const chunk of result as AsyncIterable<unknown>) chunks.push(chunk);
      // A streaming handler's chunks are printed together, as they would stream in order.
      line = JSON.stringify({ output: chunks });
    } else {
      const output = await result;
      line = typeof output === 'object' && output !== null && 'error' in output ? JSON.stringify(output) : JSON.stringify({ output: output ?? null });
    }
  } catch (error) {
    line = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
  }
  process.stdout.write(`${line}\n`);
}
