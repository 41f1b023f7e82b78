// gantry jobs and gantry workers/logs, as real processes against a running server: results as a
// person reads them, --json for scripts, exit 3 for a job that did not complete, streamed
// chunks in order, and a worker's log lines.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, sleep, startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';

let g: Live;
let env: Record<string, string>;
let stopWorker = false;
let worker: Promise<void>;

/** A protocol-level worker: echoes, fails, streams (with pauses) or holds a job, as the input says. */
async function workerLoop(): Promise<void> {
  while (!stopWorker) {
    const taken = await g.worker('GET', '/job-take/cli-worker?job_in_progress=0');
    if (taken.status !== 200) continue;
    const { id, input } = taken.json;
    if (input.stream) {
      for (let i = 0; i < input.stream; i++) {
        await sleep(100);
        await g.worker('POST', `/job-stream/cli-worker/${id}?isStream=false`, JSON.stringify({ output: `tok${i} ` }));
      }
      await g.worker('POST', `/job-done/cli-worker/${id}?isStream=true`, '{}');
    } else if (input.fail) {
      await g.worker('POST', `/job-done/cli-worker/${id}?isStream=false`, JSON.stringify({ error: input.fail }));
    } else if (input.holdMs) {
      // Held until the time passes, the job is cancelled or the tests end.
      const until = Date.now() + input.holdMs;
      while (!stopWorker && Date.now() < until && (await g.queue('GET', `/status/${id}`)).json.status !== 'CANCELLED') await sleep(100);
      await g.worker('POST', `/job-done/cli-worker/${id}?isStream=false`, JSON.stringify({ output: 'held' }));
    } else {
      await g.worker('POST', `/job-done/cli-worker/${id}?isStream=false`, JSON.stringify({ output: input.echo }));
    }
  }
}

before(async () => {
  g = await startLive({ takeWaitMs: '300' });
  env = { GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey };
  worker = workerLoop();
});
after(async () => {
  stopWorker = true;
  await worker;
  await g.close();
});

test('runsync prints the status line and the output; --json gives the API answer', async () => {
  const text = await cli(['jobs', 'runsync', g.endpointId, '--input', '{"echo": "hello there"}'], env);
  assert.equal(text.status, 0, text.stderr);
  const [status, ...output] = text.stdout.trim().split('\n');
  assert.match(status!, /^job \S+ COMPLETED \(queued \d+ ms, ran \d+ ms\)$/);
  assert.deepEqual(output, ['hello there'], 'text output as it is');
  assert.equal(text.stderr, '', 'no spinner without a terminal');

  const json = await cli(['jobs', 'runsync', g.endpointId, '--input-file', '-', '--json'], env, JSON.stringify({ echo: { n: 1 } }));
  const job = JSON.parse(json.stdout);
  assert.equal(job.status, 'COMPLETED');
  assert.deepEqual(job.output, { n: 1 });
});

test('a job that fails exits 3 with its error; a missing input is a usage error', async () => {
  const failed = await cli(['jobs', 'runsync', g.endpointId, '-i', '{"fail": "model exploded"}'], env);
  assert.equal(failed.status, 3);
  assert.match(failed.stdout, /^job \S+ FAILED/m);
  assert.match(failed.stdout, /^error: model exploded$/m);
  const jobId = /^job (\S+) FAILED/m.exec(failed.stdout)![1]!;
  const looked = await cli(['jobs', 'status', g.endpointId, jobId], env);
  assert.equal(looked.status, 0, 'a lookup that worked exits 0, whatever the job ended as');
  assert.match(looked.stdout, /FAILED/);
  assert.equal((await cli(['jobs', 'status', g.endpointId, jobId, '--wait'], env)).status, 3, 'waiting for it exits 3');

  const noInput = await cli(['jobs', 'run', g.endpointId], env);
  assert.equal(noInput.status, 2);
  assert.match(noInput.stderr, /give the job's input: --input/);
  const badJson = await cli(['jobs', 'run', g.endpointId, '--input', '{oops'], env);
  assert.equal(badJson.status, 2);
  assert.match(badJson.stderr, /--input is not valid JSON/);
});

test('run --quiet prints the id; status --wait waits for the end; a request file is sent whole', async () => {
  const run = await cli(['jobs', 'run', g.endpointId, '--quiet', '--input', '{"holdMs": 1500}'], env);
  assert.equal(run.status, 0, run.stderr);
  const jobId = run.stdout.trim();
  assert.match(jobId, /^\S+$/);
  const waited = await cli(['jobs', 'status', g.endpointId, jobId, '--wait', '--json'], env);
  assert.equal(JSON.parse(waited.stdout).status, 'COMPLETED');
  assert.equal(JSON.parse(waited.stdout).output, 'held');

  const whole = await cli(
    ['jobs', 'runsync', g.endpointId, '--input-file', '-', '--json'],
    env,
    JSON.stringify({ input: { echo: 'from test_input.json' }, policy: { ttl: 60000 } }),
  );
  assert.equal(JSON.parse(whole.stdout).output, 'from test_input.json');
});

test('stream prints the chunks as they come, in order', async () => {
  const run = await cli(['jobs', 'run', g.endpointId, '-q', '--input', '{"stream": 4}'], env);
  const streamed = await cli(['jobs', 'stream', g.endpointId, run.stdout.trim()], env);
  assert.equal(streamed.status, 0, streamed.stderr);
  assert.equal(streamed.stdout, 'tok0 tok1 tok2 tok3 \n', 'text chunks run together, ending the line');

  const again = await cli(['jobs', 'run', g.endpointId, '-q', '--input', '{"stream": 2}'], env);
  const json = await cli(['jobs', 'stream', g.endpointId, again.stdout.trim(), '--json'], env);
  assert.deepEqual(
    json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
    ['tok0 ', 'tok1 '],
  );
});

test('cancel a queued job; cancelling it again is a 409 the user sees', async () => {
  // Hold the worker so the next job stays queued; long enough for a slow machine to start the CLI
  // twice more, and cancelled at the end so the test does not wait for it.
  const holding = await cli(['jobs', 'run', g.endpointId, '-q', '-i', '{"holdMs": 60000}'], env);
  await eventually(async () => (await g.queue('GET', '/health')).json.jobs.inProgress === 1, 30_000);
  const run = await cli(['jobs', 'run', g.endpointId, '-q', '-i', '{"echo": 1}'], env);
  const jobId = run.stdout.trim();
  const cancelled = await cli(['jobs', 'cancel', g.endpointId, jobId], env);
  assert.equal(cancelled.status, 0, cancelled.stderr);
  assert.equal(cancelled.stdout.trim(), `job ${jobId} CANCELLED`);
  const twice = await cli(['jobs', 'cancel', g.endpointId, jobId], env);
  assert.equal(twice.status, 1);
  assert.match(twice.stderr, /\(409\): .*CANCELLED/);
  assert.equal((await cli(['jobs', 'cancel', g.endpointId, holding.stdout.trim()], env)).status, 0);
});
