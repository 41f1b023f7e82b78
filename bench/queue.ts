// Queue benchmark: Gantry on SQLite beside a bare Fastify echo server measured the same way.
// Run: npm run bench:queue -- [--jobs 20000] [--clients 16] [--workers 8] [--samples 1000] [--queued 1000000]
//   [--rate-limited] (the clients' key counts against rate limits, as users' keys do; exempt by default)
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { median, percentile } from './lib/measure.js';
import {
  backlog,
  dispatch,
  runsync,
  startTarget,
  stopTarget,
  throughput,
  type LoadSettings,
  type ThroughputFigures,
} from './lib/queue-load.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '16' },
    workers: { type: 'string', default: '8' },
    batch: { type: 'string', default: '4' },
    samples: { type: 'string', default: '1000' },
    queued: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '3' },
    'rate-limited': { type: 'boolean', default: false },
  },
});
const JOBS = Number(opts.jobs);
const QUEUED = Number(opts.queued);
const REPEAT = Number(opts.repeat);
/** How long runsync is sampled right after the purge, while the purged rows are being deleted. */
const AFTER_PURGE_MS = 3000;
const settings: LoadSettings = {
  clients: Number(opts.clients),
  workers: Number(opts.workers),
  batch: Number(opts.batch),
  samples: Number(opts.samples),
};

const row = (label: string, gantry: string, echo: string, ratio = '') =>
  console.log(`${label.padEnd(34)}${gantry.padStart(14)}${echo.padStart(14)}${ratio.padStart(10)}`);
const f = (n: number, digits = 2) => n.toFixed(digits);

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `jobs ${JOBS}, clients ${settings.clients}, workers ${settings.workers} (batch ${settings.batch}), samples ${settings.samples}, queued ${QUEUED}, repeats ${REPEAT} (medians)${opts['rate-limited'] ? ', rate-limited key' : ''}\n`,
);
const gantry = await startTarget('gantry', 'bench/lib/gantry-server.ts', true, opts['rate-limited'] ? { BENCH_RATE_LIMITED: '1' } : {});
const echo = await startTarget('echo', 'bench/lib/echo-server.ts', false);

await throughput(gantry, Math.min(2000, JOBS), settings);
await throughput(echo, Math.min(2000, JOBS), settings);
const runs = { gantry: [] as ThroughputFigures[], echo: [] as ThroughputFigures[] };
for (let r = 0; r < REPEAT; r++) {
  runs.gantry.push(await throughput(gantry, JOBS, settings));
  runs.echo.push(await throughput(echo, JOBS, settings));
}
const gJobs = median(runs.gantry.map((x) => x.jobsPerSecond));
const eJobs = median(runs.echo.map((x) => x.jobsPerSecond));
const gCpu = median(runs.gantry.map((x) => x.cpuMsPerJob));
const eCpu = median(runs.echo.map((x) => x.cpuMsPerJob));
const syscallsPerJob = (figures: ThroughputFigures[]) =>
  `${f(median(figures.map((x) => x.syscallsPerJob.reads)), 1)} / ${f(median(figures.map((x) => x.syscallsPerJob.writes)), 1)}`;
const gDispatch = await dispatch(gantry, settings);
const gSync = await runsync(gantry, settings);

row('', 'gantry', 'echo', 'ratio');
row('end to end, jobs/s', f(gJobs, 0), f(eJobs, 0), f(gJobs / eJobs));
row('server CPU per job, ms', f(gCpu, 3), f(eCpu, 3), f(gCpu / eCpu));
row('server reads / writes per job', syscallsPerJob(runs.gantry), syscallsPerJob(runs.echo), '-');
row('dispatch p50 / p99, ms', `${f(percentile(gDispatch, 50))} / ${f(percentile(gDispatch, 99))}`, '-');
row('runsync p50 / p99, ms', `${f(percentile(gSync, 50))} / ${f(percentile(gSync, 99))}`, '-');
if (QUEUED > 0) {
  const b = await backlog(gantry, QUEUED);
  row(`RSS before / with ${QUEUED} queued, MiB`, `${f(b.rssBefore, 0)} / ${f(b.rssAfter, 0)}`, '-');
  row('queueing rate, jobs/s', f(b.submitRate, 0), '-');
  row(`purge of ${b.removed}, ms`, f(b.purgeMs, 0), '-');
  // The purge hides the jobs at once; their rows are deleted behind it in batches meanwhile.
  const afterPurge = await runsync(gantry, settings, AFTER_PURGE_MS);
  row(
    `runsync in the ${AFTER_PURGE_MS / 1000} s after, p50 / p99`,
    `${f(percentile(afterPurge, 50))} / ${f(percentile(afterPurge, 99))}`,
    '-',
  );
}
await stopTarget(gantry);
await stopTarget(echo);
process.exit(0);
