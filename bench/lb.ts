// Load-balancer benchmark: the same requests sent to the example HTTP worker directly, through
// Gantry's balancer (a load-balancing endpoint with that worker), and through a bare node proxy
// as a reference for the cost of any extra hop on this machine, in one run.
// Run: npm run bench:lb -- [--samples 3000] [--clients 32] [--seconds 5] [--repeat 3]
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { cpuSeconds, median, ms, percentile } from './lib/measure.js';

const { values: opts } = parseArgs({
  options: {
    samples: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '5' },
    repeat: { type: 'string', default: '3' },
  },
});
const SAMPLES = Number(opts.samples);
const CLIENTS = Number(opts.clients);
const SECONDS = Number(opts.seconds);
const REPEAT = Number(opts.repeat);

interface ServerInfo {
  url: string;
  endpointId: string;
  apiKey: string;
  worker: { host: string; port: number };
  workerPid: number;
}

interface Route {
  name: string;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
}

const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/lib/gantry-lb-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => child.kill('SIGKILL'));
const info = await new Promise<ServerInfo>((resolve, reject) => {
  let buffer = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]!) as ServerInfo);
  });
  child.on('exit', (code) => reject(new Error(`the Gantry server exited with ${code}`)));
});

const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-proxy.ts', info.worker.host, String(info.worker.port)], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => bare.kill('SIGKILL'));
const barePort = await new Promise<number>((resolve) => bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));

const gantryHost = new URL(info.url).host;
const direct: Route = { name: 'direct', pool: new Pool(`http://${info.worker.host}:${info.worker.port}`, { connections: 256 }), path: '/whoami', headers: {} };
const proxied: Route = { name: 'bare', pool: new Pool(`http://127.0.0.1:${barePort}`, { connections: 256 }), path: '/whoami', headers: {} };
const balanced: Route = {
  name: 'gantry',
  pool: new Pool(info.url, { connections: 256 }),
  path: '/whoami',
  // The endpoint's own host, as requestUrls.base gives it.
  headers: { host: `${info.endpointId}.localhost:${gantryHost.split(':')[1]}`, authorization: `Bearer ${info.apiKey}` },
};

async function once(route: Route): Promise<void> {
  const res = await route.pool.request({ method: 'GET', path: route.path, headers: route.headers });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${route.name} answered ${res.statusCode}: ${text}`);
}

/** Sequential requests, the routes interleaved (in turning order) so all see the same machine noise. */
async function latency(): Promise<Record<'direct' | 'bare' | 'gantry', number[]>> {
  const samples = { direct: [] as number[], bare: [] as number[], gantry: [] as number[] };
  const routes = [direct, proxied, balanced];
  for (let i = 0; i < SAMPLES; i++) {
    for (let r = 0; r < routes.length; r++) {
      const route = routes[(i + r) % routes.length]!;
      const started = process.hrtime.bigint();
      await once(route);
      samples[route.name as 'direct' | 'bare' | 'gantry'].push(ms(started));
    }
  }
  return samples;
}

interface Throughput {
  rps: number;
  gantryCpuMs: number;
  workerCpuMs: number;
}

/** CLIENTS loops for SECONDS; requests per second, and Gantry's and the worker's CPU per request. */
async function throughput(route: Route): Promise<Throughput> {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  const cpuBefore = cpuSeconds(child.pid!);
  const workerBefore = cpuSeconds(info.workerPid);
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < until) {
      await once(route);
      done++;
    }
  }));
  const seconds = ms(started) / 1000;
  return {
    rps: done / seconds,
    gantryCpuMs: ((cpuSeconds(child.pid!) - cpuBefore) * 1000) / done,
    workerCpuMs: ((cpuSeconds(info.workerPid) - workerBefore) * 1000) / done,
  };
}

const row = (label: string, a: string, b: string, c: string, d = '') => console.log(`${label.padEnd(34)}${a.padStart(10)}${b.padStart(12)}${c.padStart(10)}${d.padStart(20)}`);
const f = (n: number, digits = 2) => n.toFixed(digits);

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`GET /whoami on the example HTTP worker; samples ${SAMPLES}, clients ${CLIENTS}, ${SECONDS} s per throughput run, repeats ${REPEAT} (medians)\n`);

for (let i = 0; i < 500; i++) for (const route of [direct, proxied, balanced]) await once(route);
const lat = await latency();
const runs = { direct: [] as Throughput[], bare: [] as Throughput[], gantry: [] as Throughput[] };
for (let r = 0; r < REPEAT; r++) {
  runs.direct.push(await throughput(direct));
  runs.bare.push(await throughput(proxied));
  runs.gantry.push(await throughput(balanced));
}
const med = (list: Throughput[], key: keyof Throughput) => median(list.map((x) => x[key]));
const p = (xs: number[], q: number) => percentile(xs, q);
const directRps = med(runs.direct, 'rps');
const bareRps = med(runs.bare, 'rps');
const gantryRps = med(runs.gantry, 'rps');

row('', 'direct', 'bare proxy', 'gantry', 'gantry vs direct');
for (const q of [50, 99]) {
  row(`latency p${q}, ms`, f(p(lat.direct, q), 3), f(p(lat.bare, q), 3), f(p(lat.gantry, q), 3), `+${f(p(lat.gantry, q) - p(lat.direct, q), 3)}`);
}
row(`throughput, ${CLIENTS} clients, req/s`, f(directRps, 0), f(bareRps, 0), f(gantryRps, 0), `${f((100 * gantryRps) / directRps, 0)} %`);
row('worker CPU per request, ms', f(med(runs.direct, 'workerCpuMs'), 3), f(med(runs.bare, 'workerCpuMs'), 3), f(med(runs.gantry, 'workerCpuMs'), 3));
row('Gantry CPU per request, ms', '-', '-', f(med(runs.gantry, 'gantryCpuMs'), 3));

for (const route of [direct, proxied, balanced]) await route.pool.close();
bare.kill('SIGTERM');
const exited = new Promise((resolve) => child.once('exit', resolve));
child.kill('SIGTERM');
await exited;
process.exit(0);
