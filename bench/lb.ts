// Load-balancer benchmark: the same requests sent to the example HTTP worker directly, through
// Gantry's balancer (a load-balancing endpoint with that worker), and through a bare node proxy
// as a reference for the cost of any extra hop on this machine, in one run.
// Throughput is measured twice: on a no-op request, where the proxy itself is the bottleneck, and
// on one that takes the worker --work-ms, closer to what a real worker does.
// Run: npm run bench:lb -- [--samples 3000] [--clients 32] [--seconds 5] [--repeat 3] [--work-ms 5]
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { cpuSeconds, median, ms, percentile, profileFlags } from './lib/measure.js';

const { values: opts } = parseArgs({
  options: {
    samples: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '5' },
    repeat: { type: 'string', default: '3' },
    'work-ms': { type: 'string', default: '5' },
  },
});
const SAMPLES = Number(opts.samples);
const CLIENTS = Number(opts.clients);
const SECONDS = Number(opts.seconds);
const REPEAT = Number(opts.repeat);
const WORK_MS = Number(opts['work-ms']);
const NO_OP = '/whoami';
const WORKING = `/sleep?ms=${WORK_MS}`;

interface ServerInfo {
  url: string;
  endpointId: string;
  apiKey: string;
  worker: { host: string; port: number };
  workerPid: number;
}

interface Route {
  name: string;
  /** The process between the client and the worker, whose CPU is counted. */
  proxyPid?: number;
  pool: Pool;
  headers: Record<string, string>;
  /** Put before every path: the balancer's /v2/lb/{id} prefix. */
  prefix: string;
}

const child = spawn(process.execPath, [...profileFlags(), '--import', 'tsx', 'bench/lib/gantry-lb-server.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
process.on('exit', () => child.kill('SIGKILL'));
const info = await new Promise<ServerInfo>((resolve, reject) => {
  let buffer = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]!) as ServerInfo);
  });
  child.on('exit', (code) => reject(new Error(`the Gantry server exited with ${code}`)));
});

const bare = spawn(
  process.execPath,
  [...profileFlags(), '--import', 'tsx', 'bench/lib/bare-proxy.ts', info.worker.host, String(info.worker.port)],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
process.on('exit', () => bare.kill('SIGKILL'));
const barePort = await new Promise<number>((resolve) => bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));

const direct: Route = {
  name: 'direct',
  pool: new Pool(`http://${info.worker.host}:${info.worker.port}`, { connections: 256 }),
  headers: {},
  prefix: '',
};
const proxied: Route = {
  name: 'bare',
  proxyPid: bare.pid!,
  pool: new Pool(`http://127.0.0.1:${barePort}`, { connections: 256 }),
  headers: {},
  prefix: '',
};
const balanced: Route = {
  name: 'gantry',
  proxyPid: child.pid!,
  pool: new Pool(info.url, { connections: 256 }),
  headers: { authorization: `Bearer ${info.apiKey}` },
  // The endpoint's base URL with the default --lb-url-pattern.
  prefix: `/v2/lb/${info.endpointId}`,
};

async function once(route: Route, path = NO_OP): Promise<void> {
  const res = await route.pool.request({ method: 'GET', path: route.prefix + path, headers: route.headers });
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
  proxyCpuMs: number;
  workerCpuMs: number;
}

/** CLIENTS loops for SECONDS; requests per second, and the proxy's and the worker's CPU per request. */
async function throughput(route: Route, path: string): Promise<Throughput> {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  const proxyCpu = () => (route.proxyPid === undefined ? 0 : cpuSeconds(route.proxyPid));
  const cpuBefore = proxyCpu();
  const workerBefore = cpuSeconds(info.workerPid);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        await once(route, path);
        done++;
      }
    }),
  );
  const seconds = ms(started) / 1000;
  return {
    rps: done / seconds,
    proxyCpuMs: ((proxyCpu() - cpuBefore) * 1000) / done,
    workerCpuMs: ((cpuSeconds(info.workerPid) - workerBefore) * 1000) / done,
  };
}

const row = (label: string, a: string, b: string, c: string, d = '') =>
  console.log(`${label.padEnd(34)}${a.padStart(10)}${b.padStart(12)}${c.padStart(10)}${d.padStart(20)}`);
const f = (n: number, digits = 2) => n.toFixed(digits);

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `GET ${NO_OP} and ${WORKING} on the example HTTP worker; samples ${SAMPLES}, clients ${CLIENTS}, ${SECONDS} s per throughput run, repeats ${REPEAT} (medians)\n`,
);

for (let i = 0; i < 500; i++) for (const route of [direct, proxied, balanced]) await once(route);
const lat = await latency();
type Runs = Record<'direct' | 'bare' | 'gantry', Throughput[]>;
const runs: Record<string, Runs> = {};
for (const path of [NO_OP, WORKING]) {
  const forPath: Runs = (runs[path] = { direct: [], bare: [], gantry: [] });
  for (let r = 0; r < REPEAT; r++) {
    forPath.direct.push(await throughput(direct, path));
    forPath.bare.push(await throughput(proxied, path));
    forPath.gantry.push(await throughput(balanced, path));
  }
}
const med = (list: Throughput[], key: keyof Throughput) => median(list.map((x) => x[key]));
const p = (xs: number[], q: number) => percentile(xs, q);

row('', 'direct', 'bare proxy', 'gantry', 'gantry vs direct');
for (const q of [50, 99]) {
  row(
    `${NO_OP} latency p${q}, ms`,
    f(p(lat.direct, q), 3),
    f(p(lat.bare, q), 3),
    f(p(lat.gantry, q), 3),
    `+${f(p(lat.gantry, q) - p(lat.direct, q), 3)}`,
  );
}
for (const path of [NO_OP, WORKING]) {
  const { direct: d, bare: b, gantry: g } = runs[path]!;
  console.log(`\n${path}, ${CLIENTS} clients`);
  row(
    '  throughput, req/s',
    f(med(d, 'rps'), 0),
    f(med(b, 'rps'), 0),
    f(med(g, 'rps'), 0),
    `${f((100 * med(g, 'rps')) / med(d, 'rps'), 0)} %`,
  );
  row('  worker CPU per request, ms', f(med(d, 'workerCpuMs'), 3), f(med(b, 'workerCpuMs'), 3), f(med(g, 'workerCpuMs'), 3));
  row('  proxy CPU per request, ms', '-', f(med(b, 'proxyCpuMs'), 3), f(med(g, 'proxyCpuMs'), 3));
}

for (const route of [direct, proxied, balanced]) await route.pool.close();
bare.kill('SIGTERM');
const exited = new Promise((resolve) => child.once('exit', resolve));
child.kill('SIGTERM');
await exited;
process.exit(0);
