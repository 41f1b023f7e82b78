// gantry workers list and gantry logs against a server that runs a worker process of its own.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually, startLive, type Live } from './support/live.js';
import { CLI, cli } from './support/processes.js';

// A worker that only prints: it never takes a job, which is all these tests need of it.
const PRINTING_WORKER = {
  entrypoint: [process.execPath],
  cmd: ['-e', "console.log('hello from the worker'); setInterval(() => console.log('still here'), 300)"],
  workers: { min: 1, max: 1 },
};

let g: Live;
let env: Record<string, string>;
let workerId: string;

before(async () => {
  g = await startLive({ workerProvider: 'process', scaleIntervalMs: '100', workerStopGraceMs: '500' }, PRINTING_WORKER);
  env = { GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey };
  workerId = await eventually(async () => g.services.runtime!.workersOf(g.endpointId)[0]?.workerId, 15_000);
});
after(() => g.close());

test('workers list shows the worker in a table, and --json the API answer', async () => {
  const listed = await cli(['workers', 'list', g.endpointId], env);
  assert.equal(listed.status, 0, listed.stderr);
  const [header, row] = listed.stdout.trim().split('\n');
  assert.deepEqual(header!.split(/\s{2,}/), ['ID', 'STATUS', 'VERSION', 'UPTIME', 'GPU', 'DATA CENTER', 'STARTED BY']);
  assert.match(row!, new RegExp(`^${workerId}\\s+(INITIALIZING|IDLE|RUNNING)\\s+1\\s+\\d+s\\s+-\\s+LOCAL\\s+gantry$`));
  const json = JSON.parse((await cli(['workers', 'list', g.endpointId, '--json'], env)).stdout);
  assert.equal(json.workers[0].id, workerId);
  assert.equal(json.summary.total, 1);
});

test("logs prints the worker's lines; --json one object per line; an unknown worker is a 404", async () => {
  // Every line kept: on a slow machine the default tail may no longer reach the first ones.
  const logs = await cli(['logs', g.endpointId, workerId, '--tail', '1000'], env);
  assert.equal(logs.status, 0, logs.stderr);
  assert.match(logs.stdout, /^\[gantry\] started: /m);
  assert.match(logs.stdout, /^hello from the worker$/m);

  const json = await cli(['logs', g.endpointId, workerId, '--json', '--source', 'container', '--tail', '1'], env);
  const lines = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(lines.length, 1);
  assert.equal(lines[0].source, 'container');
  assert.match(lines[0].ts, /^\d{4}-/);

  const unknown = await cli(['logs', g.endpointId, 'no-such-worker'], env);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /Not Found \(404\): worker no-such-worker/);
});

test('logs --follow keeps printing new lines as the worker writes them', async () => {
  const child = spawn(process.execPath, [...CLI, 'logs', g.endpointId, workerId, '--follow', '--tail', '0'], {
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await eventually(async () => (out.match(/^still here$/gm) ?? []).length >= 2, 60_000);
  } finally {
    child.kill('SIGINT');
  }
});
