// Webhooks benchmark: what a webhook on every job costs. The peers benchmark's RunPod-protocol
// workload (producers submit small jobs without waiting, workers take and complete them) runs
// without webhooks and with one on every job, alternated, each job's webhook delivered to a
// receiver in this process; a run with webhooks ends when the last one has arrived. Then jobs one
// at a time: the time from the worker's result being answered to its webhook arriving.
// Run: npm run bench:webhooks -- [--jobs 10000] [--producers 16] [--workers 8] [--repeat 3] [--samples 300]
//   [--stores sqlite,postgres]
// PostgreSQL too when GANTRY_BENCH_POSTGRES_URL is set.
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { flow, httpFlowSystem, type FlowSettings } from './lib/job-flow.js';
import { cpuSeconds, median, percentile } from './lib/measure.js';
import { postgresPids, withSchema } from './lib/postgres-schema.js';
import { call, startTarget, stopTarget, type Target } from './lib/queue-load.js';
import { walBytesDuring } from './lib/postgres-wal.js';
import { webhookReceiver, type WebhookReceiver } from './lib/webhook-receiver.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '10000' },
    producers: { type: 'string', default: '16' },
    workers: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '3' },
    samples: { type: 'string', default: '300' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const settings: FlowSettings = {
  jobs: Number(opts.jobs),
  producers: Number(opts.producers),
  workers: Number(opts.workers),
  submitBatch: 1,
};
const REPEAT = Number(opts.repeat);
const SAMPLES = Number(opts.samples);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;

interface Run {
  jobsPerSecond: number;
  /** CPU per job, ms: Gantry's process, and the database's processes (none on SQLite). */
  gantryCpuMsPerJob: number;
  databaseCpuMsPerJob: number;
  /** PostgreSQL's write-ahead log per job, bytes (NaN on SQLite). */
  walBytesPerJob: number;
}

/** One run of the workload; with a receiver, every job carries its webhook and the run ends when all have arrived. */
async function run(t: Target, receiver: WebhookReceiver | undefined, s: FlowSettings): Promise<Run> {
  const system = httpFlowSystem(t, 1);
  if (receiver) {
    system.submit = async (producer, submittedAt) => {
      const answer = await call(t, producer, 'POST', '/run', t.apiKey, { input: { submittedAt }, webhook: receiver.url });
      if (answer.status !== 200) throw new Error(`a submit answered ${answer.status}: ${JSON.stringify(answer.json)}`);
    };
  }
  const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const gantryCpu = () => cpuOf(t.nodes.map((n) => n.child.pid!));
  const [gantryBefore, databaseBefore] = [gantryCpu(), cpuOf(t.cpuPids())];
  const [deliveredBefore, started] = [receiver?.count() ?? 0, performance.now()];
  await flow(system, s);
  while (receiver && receiver.count() - deliveredBefore < s.jobs) await new Promise((resolve) => setTimeout(resolve, 2));
  const seconds = (performance.now() - started) / 1000;
  // Asked afresh: database backends may have started since.
  const databaseAfter = cpuOf(t.cpuPids());
  return {
    jobsPerSecond: s.jobs / seconds,
    gantryCpuMsPerJob: ((gantryCpu() - gantryBefore) * 1000) / s.jobs,
    databaseCpuMsPerJob: ((databaseAfter - databaseBefore) * 1000) / s.jobs,
    walBytesPerJob: Number.NaN,
  };
}

/** A run, with the WAL it wrote when `database` is PostgreSQL's URL. */
async function runMeasured(t: Target, receiver: WebhookReceiver | undefined, s: FlowSettings, database: string | undefined): Promise<Run> {
  if (!database) return run(t, receiver, s);
  const { result, walBytes } = await walBytesDuring(database, () => run(t, receiver, s));
  return { ...result, walBytesPerJob: walBytes / s.jobs };
}

/** Jobs one at a time with a webhook: ms from the worker's result being answered to the webhook's arrival. */
async function deliveryLags(t: Target, receiver: WebhookReceiver): Promise<number[]> {
  // The wake-up jobs of the runs before that no worker took stay queued: each sample takes its own job.
  const purged = await call(t, 0, 'POST', '/purge-queue', t.apiKey, {});
  if (purged.status !== 200) throw new Error(`purge-queue answered ${purged.status}`);
  const lags: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const submitted = await call(t, 0, 'POST', '/run', t.apiKey, { input: { i }, webhook: receiver.url });
    const id = submitted.json.id;
    const taken = await call(t, 0, 'GET', '/job-take/lag', t.workerKey);
    if (taken.json.id !== id) throw new Error('the worker took another job');
    await call(t, 0, 'POST', `/job-done/lag/${id}`, t.workerKey, { output: { ok: true } });
    const answered = performance.now();
    lags.push((await receiver.delivered(id)) - answered);
  }
  return lags;
}

async function measure(label: string, env: Record<string, string>, cpuPids?: () => number[]): Promise<void> {
  const database = env.BENCH_DATABASE;
  const t = await startTarget('gantry', 'bench/lib/gantry-server.ts', false, env, cpuPids);
  const receiver = await webhookReceiver();
  try {
    const warmUp = { ...settings, jobs: Math.min(2000, settings.jobs) };
    await run(t, undefined, warmUp);
    await run(t, receiver, warmUp);
    const plain: Run[] = [];
    const hooked: Run[] = [];
    for (let r = 0; r < REPEAT; r++) {
      plain.push(await runMeasured(t, undefined, settings, database));
      hooked.push(await runMeasured(t, receiver, settings, database));
    }
    const lags = await deliveryLags(t, receiver);
    const rate = (runs: Run[]) => median(runs.map((x) => x.jobsPerSecond));
    type Figure = 'gantryCpuMsPerJob' | 'databaseCpuMsPerJob' | 'walBytesPerJob';
    const of = (runs: Run[], figure: Figure) => median(runs.map((x) => x[figure]));
    const figureRow = (name: string, figure: Figure, digits = 3) =>
      row([
        name,
        of(plain, figure).toFixed(digits),
        of(hooked, figure).toFixed(digits),
        (of(hooked, figure) / of(plain, figure)).toFixed(2),
      ]);
    const row = (cells: string[]) => console.log(cells.map((c, i) => (i === 0 ? c.padEnd(36) : c.padStart(14))).join(''));
    row([label, 'no webhooks', 'webhooks', 'ratio']);
    row(['jobs/s (until the last webhook)', rate(plain).toFixed(0), rate(hooked).toFixed(0), (rate(hooked) / rate(plain)).toFixed(2)]);
    figureRow("Gantry's CPU per job, ms", 'gantryCpuMsPerJob');
    if (database) {
      figureRow("the database's CPU per job, ms", 'databaseCpuMsPerJob');
      figureRow('WAL per job, bytes', 'walBytesPerJob', 0);
    }
    row(['result to webhook p50 / p99, ms', '-', `${percentile(lags, 50).toFixed(2)} / ${percentile(lags, 99).toFixed(2)}`, '-']);
    console.log();
  } finally {
    receiver.close();
    await stopTarget(t);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `jobs ${settings.jobs}, producers ${settings.producers}, workers ${settings.workers}, repeats ${REPEAT} (medians, the two kinds of run alternated), ${SAMPLES} samples one at a time\n`,
);
const STORES = opts.stores.split(',');
if (STORES.includes('sqlite')) await measure('SQLite', {});
if (!STORES.includes('postgres')) process.exit(0);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', { BENCH_DATABASE: url }, postgresPids));
else console.log('PostgreSQL skipped: set GANTRY_BENCH_POSTGRES_URL to measure it');
console.log(`CPU: Gantry's process, and the PostgreSQL server's processes, from the first submit to the last
webhook's arrival. The receiver runs in the load generator's process and answers at once.`);
process.exit(0);
