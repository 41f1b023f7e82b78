// Queue benchmark: Gantry on SQLite beside a bare Fastify echo server measured the same way.
// Run: npm run bench:queue -- [--jobs 20000] [--clients 16] [--workers 8] [--samples 1000] [--queued 1000000]
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { cpuSeconds, median, ms, percentile, rssMiB } from './lib/measure.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '16' },
    workers: { type: 'string', default: '8' },
    batch: { type: 'string', default: '4' },
    samples: { type: 'string', default: '1000' },
    queued: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '3' },
  },
});
const JOBS = Number(opts.jobs);
const CLIENTS = Number(opts.clients);
const WORKERS = Number(opts.workers);
const BATCH = Number(opts.batch);
const SAMPLES = Number(opts.samples);
const QUEUED = Number(opts.queued);
const REPEAT = Number(opts.repeat);

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
  endpointId: string;
  apiKey: string;
  workerKey: string;
  pool: Pool;
}

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

async function start(name: string, script: string): Promise<Target> {
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []), '--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      if (buffer.includes('\n')) resolve(buffer.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  const info = JSON.parse(line) as Omit<Target, 'name' | 'child' | 'pool'>;
  return { name, child, ...info, pool: new Pool(info.url, { connections: 256, pipelining: 1 }) };
}

// Bodies are whatever the server answered; the benchmark reads a few known fields.
type Json = { id: string; status: string; removed: number } & Record<string, unknown>;

async function call(t: Target, method: 'GET' | 'POST', path: string, key: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await t.pool.request({
    method,
    path: `/v2/${t.endpointId}${path}`,
    headers: body === undefined ? { authorization: key } : { authorization: key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: (text ? JSON.parse(text) : {}) as Json };
}

/** run -> take -> done -> status, C clients and W workers at once; answers jobs/s and CPU ms/job. */
async function throughput(t: Target, jobs: number): Promise<{ jobsPerSecond: number; cpuMsPerJob: number }> {
  let submitted = 0;
  let completed = 0;
  let stop = false;
  const workers = Array.from({ length: WORKERS }, async (_, w) => {
    while (!stop) {
      const path = t.name === 'echo' ? `/job-take/w${w}` : `/job-take-batch/w${w}?batch_size=${BATCH}`;
      const taken = await call(t, 'GET', path, t.workerKey);
      if (taken.status !== 200) continue;
      for (const job of (Array.isArray(taken.json) ? taken.json : [taken.json]) as Json[]) {
        await call(t, 'POST', `/job-done/w${w}/${job.id}?isStream=false`, t.workerKey, { output: { ok: true } });
      }
    }
  });
  const cpuBefore = cpuSeconds(t.child.pid!);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (submitted < jobs) {
        submitted++;
        const run = await call(t, 'POST', '/run', t.apiKey, { input: { n: submitted } });
        const status = await call(t, 'GET', `/status-sync/${run.json.id}?wait=60000`, t.apiKey);
        if (status.json.status === 'COMPLETED') completed++;
      }
    }),
  );
  const seconds = ms(started) / 1000;
  const cpu = cpuSeconds(t.child.pid!) - cpuBefore;
  stop = true;
  // Wake the workers' long-polls so they see the stop.
  for (let i = 0; i < WORKERS * BATCH; i++) void call(t, 'POST', '/run', t.apiKey, { input: { drain: true } });
  await Promise.all(workers);
  if (completed !== jobs) throw new Error(`${t.name}: ${completed} of ${jobs} jobs completed`);
  return { jobsPerSecond: jobs / seconds, cpuMsPerJob: (cpu * 1000) / jobs };
}

/** run accepted -> the idle long-polling worker receives it. */
async function dispatch(t: Target): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const take = call(t, 'GET', '/job-take/lat', t.workerKey);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const started = process.hrtime.bigint();
    await call(t, 'POST', '/run', t.apiKey, { input: { i } });
    const taken = await take;
    samples.push(ms(started));
    await call(t, 'POST', `/job-done/lat/${taken.json.id}?isStream=false`, t.workerKey, { output: null });
  }
  return samples;
}

/** runsync round trip with a worker that answers at once. */
async function runsync(t: Target): Promise<number[]> {
  let stop = false;
  const worker = (async () => {
    while (!stop) {
      const taken = await call(t, 'GET', '/job-take/sync', t.workerKey);
      if (taken.status === 200) await call(t, 'POST', `/job-done/sync/${taken.json.id}?isStream=false`, t.workerKey, { output: 'ok' });
    }
  })();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = process.hrtime.bigint();
    const res = await call(t, 'POST', '/runsync?wait=10000', t.apiKey, { input: { i } });
    if (res.json.status !== 'COMPLETED') throw new Error(`runsync answered ${res.json.status}`);
    samples.push(ms(started));
  }
  stop = true;
  await call(t, 'POST', '/run', t.apiKey, { input: { drain: true } });
  await worker;
  return samples;
}

async function backlog(t: Target): Promise<{ rssBefore: number; rssAfter: number; submitRate: number; purgeMs: number; removed: number }> {
  const rssBefore = rssMiB(t.child.pid!);
  let sent = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (sent < QUEUED) {
        sent++;
        await call(t, 'POST', '/run', t.apiKey, { input: { n: sent, text: 'queued job' } });
      }
    }),
  );
  const submitRate = QUEUED / (ms(started) / 1000);
  const rssAfter = rssMiB(t.child.pid!);
  const purgeStart = process.hrtime.bigint();
  const purge = await call(t, 'POST', '/purge-queue', t.apiKey, {});
  return { rssBefore, rssAfter, submitRate, purgeMs: ms(purgeStart), removed: purge.json.removed };
}

const row = (label: string, gantry: string, echo: string, ratio = '') => console.log(`${label.padEnd(34)}${gantry.padStart(14)}${echo.padStart(14)}${ratio.padStart(10)}`);
const f = (n: number, digits = 2) => n.toFixed(digits);

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`jobs ${JOBS}, clients ${CLIENTS}, workers ${WORKERS} (batch ${BATCH}), samples ${SAMPLES}, queued ${QUEUED}, repeats ${REPEAT} (medians)\n`);
const gantry = await start('gantry', 'bench/lib/gantry-server.ts');
const echo = await start('echo', 'bench/lib/echo-server.ts');

await throughput(gantry, Math.min(2000, JOBS));
await throughput(echo, Math.min(2000, JOBS));
const runs = { gantry: [] as { jobsPerSecond: number; cpuMsPerJob: number }[], echo: [] as { jobsPerSecond: number; cpuMsPerJob: number }[] };
for (let r = 0; r < REPEAT; r++) {
  runs.gantry.push(await throughput(gantry, JOBS));
  runs.echo.push(await throughput(echo, JOBS));
}
const gJobs = median(runs.gantry.map((x) => x.jobsPerSecond));
const eJobs = median(runs.echo.map((x) => x.jobsPerSecond));
const gCpu = median(runs.gantry.map((x) => x.cpuMsPerJob));
const eCpu = median(runs.echo.map((x) => x.cpuMsPerJob));
const gDispatch = await dispatch(gantry);
const gSync = await runsync(gantry);

row('', 'gantry', 'echo', 'ratio');
row('end to end, jobs/s', f(gJobs, 0), f(eJobs, 0), f(gJobs / eJobs));
row('server CPU per job, ms', f(gCpu, 3), f(eCpu, 3), f(gCpu / eCpu));
row('dispatch p50 / p99, ms', `${f(percentile(gDispatch, 50))} / ${f(percentile(gDispatch, 99))}`, '-');
row('runsync p50 / p99, ms', `${f(percentile(gSync, 50))} / ${f(percentile(gSync, 99))}`, '-');
if (QUEUED > 0) {
  const b = await backlog(gantry);
  row(`RSS before / with ${QUEUED} queued, MiB`, `${f(b.rssBefore, 0)} / ${f(b.rssAfter, 0)}`, '-');
  row('queueing rate, jobs/s', f(b.submitRate, 0), '-');
  row(`purge of ${b.removed}, ms`, f(b.purgeMs, 0), '-');
}
for (const t of [gantry, echo]) {
  await t.pool.close();
  const exited = new Promise((resolve) => t.child.once('exit', resolve));
  t.child.kill('SIGTERM');
  await exited;
}
process.exit(0);
