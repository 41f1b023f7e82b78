// `gantry serve` shutting down while a load-balancer WebSocket tunnel is open: the client has
// gone quiet and the worker ignores both the close and SIGTERM. The process must still exit
// within --worker-stop-grace-ms plus a small margin, and take its worker with it — on the
// second-signal fast path too.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { callApi, serve, type ServeProcess } from './support/processes.js';
import { openRawTunnel } from './support/raw-tunnel.js';
import { eventually } from './support/live.js';
import { killIfStill } from './support/process-tree.js';

const GRACE_MS = 1500;
/** The documented bound: the grace plus a few seconds for everything else to close. */
const SHUTDOWN_BOUND_MS = GRACE_MS + 5000;
const STUBBORN_WORKER = resolve('test/fixtures/workers/stubborn-websocket.mjs');

const dirs: string[] = [];
const leftovers: number[] = [];
const isStubbornWorker = (commandLine: string) => commandLine.includes(STUBBORN_WORKER);
after(() => {
  for (const pid of leftovers) killIfStill(pid, isStubbornWorker);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Alive and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

interface Scene {
  gantry: ServeProcess;
  worker: { pid: number; port: number };
}

/** Gantry with one stubborn worker, and a client that opened a tunnel to it and went quiet. */
async function sceneWithQuietTunnel(): Promise<Scene> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-shutdown-'));
  dirs.push(dataDir);
  const workerFile = join(dataDir, 'worker.json');
  const gantry = await serve([
    '--data-dir',
    dataDir,
    '--worker-provider',
    'process',
    '--worker-work-dir',
    dataDir,
    '--worker-stop-grace-ms',
    String(GRACE_MS),
    '--scale-interval-ms',
    '100',
    '--lb-health-interval-ms',
    '100',
  ]);
  const key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(gantry.output())?.[1];
  assert.ok(key, gantry.output());
  const created = await callApi(gantry.url, key, 'POST', '/v2/serverless', {
    name: 'stubborn',
    type: 'LOAD_BALANCER',
    image: 'local/stubborn',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
    workers: { min: 1, max: 1 },
    entrypoint: [process.execPath],
    cmd: [STUBBORN_WORKER, workerFile],
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id as string;
  await eventually(async () => (await callApi(gantry.url, key, 'GET', `/v2/lb/${id}/ping`)).json?.workers?.ready === 1, 20_000);
  const worker = JSON.parse(readFileSync(workerFile, 'utf8')) as { pid: number; port: number };
  leftovers.push(worker.pid);
  const tunnel = await openRawTunnel(gantry.url, `/v2/lb/${id}/ws`, key);
  // The client goes quiet: it neither sends nor closes, and reads nothing more.
  tunnel.socket.pause();
  return { gantry, worker };
}

/** Sends the signals and resolves with how long the process took to exit (or rejects past the bound). */
function exitAfter(gantry: ServeProcess, signals: NodeJS.Signals[], gapMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      gantry.child.kill('SIGKILL');
      fail(new Error(`gantry serve was still running ${SHUTDOWN_BOUND_MS} ms after ${signals.join(', ')}:\n${gantry.output()}`));
    }, SHUTDOWN_BOUND_MS);
    gantry.child.removeAllListeners('exit');
    gantry.child.once('exit', () => {
      clearTimeout(timer);
      done(Date.now() - started);
    });
    signals.forEach((signal, i) => setTimeout(() => gantry.child.kill(signal), i * gapMs));
  });
}

async function assertNothingLeft(scene: Scene): Promise<void> {
  await eventually(async () => !running(scene.worker.pid), 2000).catch(() => undefined);
  assert.equal(running(scene.worker.pid), false, `the worker (pid ${scene.worker.pid}) outlived gantry serve`);
  assert.equal(await portFree(scene.worker.port), true, "the worker's port is free");
  assert.equal(await portFree(Number(new URL(scene.gantry.url).port)), true, "gantry's port is free");
}

test('SIGTERM with a quiet tunnel open exits within the worker stop grace and stops the worker', async () => {
  const scene = await sceneWithQuietTunnel();
  await exitAfter(scene.gantry, ['SIGTERM'], 0);
  assert.equal(scene.gantry.child.exitCode, 0, scene.gantry.output());
  await assertNothingLeft(scene);
});

test('a second SIGTERM exits at once and still leaves no worker behind', async () => {
  const scene = await sceneWithQuietTunnel();
  await exitAfter(scene.gantry, ['SIGTERM', 'SIGTERM'], 200);
  assert.equal(scene.gantry.child.exitCode, 1);
  assert.match(scene.gantry.output(), /SIGTERM again: exiting now/);
  await assertNothingLeft(scene);
});
