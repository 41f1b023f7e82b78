// The worker SDK's local mode: with a test input (RUNPOD_TEST_INPUT, --test_input) it runs the
// handler once, prints the result and talks to no server; the example worker does the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { serve } from '../src/worker/index.js';
import { testHandler } from './support/worker-sdk-rig.js';

async function captureStdout(run: () => Promise<void>): Promise<string> {
  const original = process.stdout.write;
  let text = '';
  // Only strings are ours: the test runner's own reports are written as buffers.
  process.stdout.write = ((chunk: any, ...rest: any[]) =>
    typeof chunk === 'string' ? ((text += chunk), true) : original.call(process.stdout, chunk, ...rest)) as any;
  try {
    await run();
  } finally {
    process.stdout.write = original;
  }
  return text;
}

test('local mode runs the handler once on the test input and prints the result, with no server', async () => {
  assert.equal(
    await captureStdout(() => serve(testHandler, { env: {}, testInput: { result: { got: 'hi' } } })),
    '{"output":{"got":"hi"}}\n',
  );
  assert.equal(await captureStdout(() => serve(testHandler, { env: {}, testInput: { stream: 2 } })), '{"output":[{"i":0},{"i":1}]}\n');
  const failed = await captureStdout(() => serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"input":{"fail":"broken"}}' } }));
  assert.equal(failed, '{"error":"broken"}\n');
  assert.equal(process.exitCode, 1, 'a failure given from outside is an exit code for scripts');
  process.exitCode = 0;
  await assert.rejects(
    serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"input":' } }),
    /^WorkerConfigError: RUNPOD_TEST_INPUT is not valid JSON/,
  );
  await assert.rejects(
    serve(testHandler, { env: { RUNPOD_TEST_INPUT: '{"prompt":"x"}' } }),
    /RUNPOD_TEST_INPUT must be a JSON object of the form \{"input": \.\.\.\}/,
  );
});

test('the example worker runs locally from --test_input and prints the result', () => {
  const run = (input: unknown) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts', '--test_input', JSON.stringify({ input })], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
  const echo = run({ echo: { a: 1 } });
  assert.deepEqual([echo.stdout, echo.status], ['{"output":{"a":1}}\n', 0]);
  const fail = run({ fail: 'broken' });
  assert.deepEqual([fail.stdout, fail.status], ['{"error":"broken"}\n', 1]);
  assert.equal(run({ errorObject: 'bad prompt' }).stdout, '{"error":"bad prompt"}\n');
  assert.equal(run({ stream: 2, chunk: 'c' }).stdout, '{"output":[{"i":0,"text":"c"},{"i":1,"text":"c"}]}\n');
  assert.equal(run({ outputBytes: 5 }).stdout, '{"output":"xxxxx"}\n');
});
