// Peers benchmark: one job workload (producers submitting small jobs without waiting, workers of
// one concurrency taking and completing them) through Gantry on SQLite and on PostgreSQL (each with
// RunPod-protocol workers, and with a worker process on Gantry's own SDK),
// BullMQ on Redis, and a bare HTTP echo server answering the same request shapes, in one run.
// Run: npm run bench:peers -- [--jobs 20000] [--producers 16] [--workers 8] [--batch 1] [--submit-batch 1] [--repeat 3]
//   [--only sqlite,sdk,postgres,sdk-postgres,bullmq,echo] (rows to run; all by default)
// PostgreSQL comes from GANTRY_BENCH_POSTGRES_URL (its rows are skipped when unset); Redis from
// GANTRY_BENCH_REDIS (host:port, default 127.0.0.1:6379).
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { bullmqFlowSystem } from './lib/bullmq-flow.js';
import { flow, httpFlowSystem, type FlowFigures, type FlowSettings, type FlowSystem } from './lib/job-flow.js';
import { median, percentile } from './lib/measure.js';
import { postgresPids, withSchema } from './lib/postgres-schema.js';
import { startTarget, stopTarget } from './lib/queue-load.js';
import { sdkFlowSystem } from './lib/sdk-flow.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    producers: { type: 'string', default: '16' },
    workers: { type: 'string', default: '8' },
    batch: { type: 'string', default: '1' },
    // Jobs per submit: Gantry's run-batch, BullMQ's addBulk (the RunPod protocol has no batched submit).
    'submit-batch': { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
    only: { type: 'string', default: 'sqlite,sdk,postgres,sdk-postgres,bullmq,echo' }, // the names KNOWN_ROWS lists
  },
});
const settings: FlowSettings = {
  jobs: Number(opts.jobs),
  producers: Number(opts.producers),
  workers: Number(opts.workers),
  submitBatch: Number(opts['submit-batch']),
};
const BATCH = Number(opts.batch);
const REPEAT = Number(opts.repeat);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;
const ROWS = new Set(opts.only.split(','));
const KNOWN_ROWS = ['sqlite', 'sdk', 'postgres', 'sdk-postgres', 'bullmq', 'echo'];
const unknownRows = [...ROWS].filter((row) => !KNOWN_ROWS.includes(row));
if (unknownRows.length > 0) throw new Error(`--only names rows ${KNOWN_ROWS.join(', ')}; not ${unknownRows.join(', ')}`);
const [redisHost, redisPort] = (process.env.GANTRY_BENCH_REDIS ?? '127.0.0.1:6379').split(':');

/** A warm-up, then REPEAT runs; the run of median throughput is reported whole. */
async function measure(system: FlowSystem): Promise<FlowFigures> {
  await flow(system, { ...settings, jobs: Math.min(2000, settings.jobs) });
  const runs: FlowFigures[] = [];
  for (let r = 0; r < REPEAT; r++) runs.push(await flow(system, settings));
  const middle = median(runs.map((run) => run.jobsPerSecond));
  return runs.find((run) => run.jobsPerSecond === middle)!;
}

async function gantry(env: Record<string, string>, cpuPids?: () => number[]): Promise<FlowFigures> {
  const target = await startTarget('gantry', 'bench/lib/gantry-server.ts', BATCH > 1, env, cpuPids);
  try {
    return await measure(httpFlowSystem(target, BATCH));
  } finally {
    await stopTarget(target);
  }
}

/** Gantry with a worker process on Gantry's own SDK (batched takes that carry the last results). */
async function gantrySdk(env: Record<string, string>, cpuPids?: () => number[]): Promise<FlowFigures> {
  const target = await startTarget('gantry', 'bench/lib/gantry-server.ts', true, env, cpuPids);
  const system = sdkFlowSystem(target, settings.workers);
  try {
    return await measure(system);
  } finally {
    system.close();
    await stopTarget(target);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `jobs ${settings.jobs}, producers ${settings.producers} (${settings.submitBatch} jobs per submit), workers ${settings.workers} (take batch ${BATCH}), repeats ${REPEAT} (the median run)\n`,
);
const results: [string, FlowFigures][] = [];
if (ROWS.has('sqlite')) results.push(['gantry, SQLite', await gantry({})]);
if (ROWS.has('sdk')) results.push(['gantry SDK, SQLite', await gantrySdk({})]);
for (const [row, label, run] of [
  ['postgres', 'gantry, PostgreSQL', gantry],
  ['sdk-postgres', 'gantry SDK, PostgreSQL', gantrySdk],
] as const) {
  if (!ROWS.has(row)) continue;
  if (!POSTGRES) {
    console.log(`${label}: skipped (set GANTRY_BENCH_POSTGRES_URL to measure it)`);
    continue;
  }
  results.push([label, await withSchema(POSTGRES, (url) => run({ BENCH_DATABASE: url }, postgresPids))]);
}
if (ROWS.has('bullmq')) {
  const bull = bullmqFlowSystem({ host: redisHost!, port: Number(redisPort) });
  results.push(['BullMQ, Redis', await measure(bull)]);
  await bull.close();
}
if (ROWS.has('echo')) {
  const echoTarget = await startTarget('echo', 'bench/lib/echo-server.ts', false);
  results.push(['bare HTTP echo', await measure(httpFlowSystem(echoTarget, 1))]);
  await stopTarget(echoTarget);
}

const f = (n: number, digits = 2) => (Number.isNaN(n) ? '-' : n.toFixed(digits));
const rate = (name: string) => results.find(([label]) => label === name)?.[1].jobsPerSecond ?? Number.NaN;
const line = (cells: string[]) => console.log(cells.map((c, i) => (i === 0 ? c.padEnd(24) : c.padStart(i === 5 ? 21 : 12))).join(''));
line(['', 'jobs/s', 'server CPU', 'client CPU', 'total CPU', 'start p50 / p99', 'vs BullMQ', 'vs echo']);
line(['', '', 'ms/job', 'ms/job', 'ms/job', 'ms', '', '']);
for (const [name, r] of results) {
  line([
    name,
    f(r.jobsPerSecond, 0),
    f(r.serverCpuMsPerJob, 3),
    f(r.clientCpuMsPerJob, 3),
    f(r.serverCpuMsPerJob + r.clientCpuMsPerJob, 3),
    r.latencies.length === 0 ? '-' : `${f(percentile(r.latencies, 50))} / ${f(percentile(r.latencies, 99))}`,
    `${f(r.jobsPerSecond / rate('BullMQ, Redis'))}x`,
    `${f(r.jobsPerSecond / rate('bare HTTP echo'))}x`,
  ]);
}
console.log(`
Gantry's workers speak the RunPod worker protocol: every job is an HTTP request to submit it, one
to take it and one to report its result, each parsed, authenticated and answered on both sides.
BullMQ's producers and workers talk to Redis over its own protocol, with no HTTP on either side.
The SDK rows run Gantry's own worker SDK in a worker process of its own: it takes jobs in batches,
and its next take carries the results finished since (job-done-batch with take).
Server CPU: Gantry's process (and the PostgreSQL server's processes; the SDK worker process),
redis-server, or the echo server. Client CPU: this process, the load generator, which for BullMQ
also runs the workers.
The echo server hands back no submit time: it has no start latency.${
  settings.submitBatch > 1
    ? `\nEach submit carried ${settings.submitBatch} jobs: Gantry's run-batch, BullMQ's addBulk, the echo server's canned run-batch.`
    : ''
}`);
process.exit(0);
