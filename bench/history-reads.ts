// History reads benchmark: an endpoint with a long finished history is read the ways people read
// it (the health counts, a job list filtered to a rare status or to one no job has, a chart's
// series) while another endpoint's job is read again and again in the same process, as another
// client's status requests would be. Prints how long each read takes and how long those other
// reads wait meanwhile.
// Run: npm run bench:history-reads -- [--jobs 1000000] [--reads 5] [--stores sqlite,postgres] [--vacuum]
// PostgreSQL too when GANTRY_BENCH_POSTGRES_URL is set (a schema of its own, dropped afterwards).
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { percentile } from './lib/measure.js';
import { runStatement, withSchema } from './lib/postgres-schema.js';
import { readNeighbourMeanwhile, settle, startHistoryServer, type HistoryServer } from './lib/long-history.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000000' },
    reads: { type: 'string', default: '5' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    vacuum: { type: 'boolean', default: false },
  },
});
const STORES = opts.stores.split(',');
const JOBS = Number(opts.jobs);
const READS = Number(opts.reads);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;
/** Jobs taken, then finished, per store call while the history is built. */
const FINISH_BATCH = 1000;
/** Between two reads of one kind, as several people's pages asking now and then. */
const PAUSE_MS = 50;
/** One finished job in this many failed, the rest completed. */
const FAILED_EVERY = 1000;

/** Takes every queued job of the history endpoint and finishes it: a history of finished jobs. */
async function finishAll(bench: HistoryServer): Promise<void> {
  const { jobs } = bench.store;
  for (;;) {
    const now = Date.now();
    const taken = await jobs.take(bench.history.id, 'bench-worker', FINISH_BATCH, now, now + 600_000);
    if (taken.length === 0) return;
    await Promise.all(
      taken.map((job) =>
        jobs.complete(job.id, ['IN_PROGRESS'], {
          status: Number(job.id.split('-').pop()) % FAILED_EVERY === 0 ? 'FAILED' : 'COMPLETED',
          output: job.id.endsWith('0') ? null : '{"ok":true}',
          error: null,
          completedAt: Date.now(),
        }),
      ),
    );
  }
}

/** The span the console's charts ask for: the last `minutes`, a point a minute. */
function lastMinutes(minutes: number) {
  const to = Date.now();
  return { from: to - minutes * 60_000, to, stepMs: 60_000 };
}

function readsOf(bench: HistoryServer): [string, () => Promise<unknown>][] {
  const { jobs, jobHistory } = bench.store;
  const id = bench.history.id;
  return [
    ['health counts', () => jobs.counts(id)],
    ['list: FAILED', () => jobHistory.list(id, { statuses: ['FAILED'], limit: 50 })],
    ['list: IN_PROGRESS (none)', () => jobHistory.list(id, { statuses: ['IN_PROGRESS'], limit: 50 })],
    ['list: all', () => jobHistory.list(id, { statuses: [], limit: 50 })],
    ['series: last hour', () => jobHistory.series(id, lastMinutes(60))],
    ['series: nothing new', () => jobHistory.series(id, { from: Date.now(), to: Date.now() + 300_000, stepMs: 60_000 })],
  ];
}

async function measure(label: string, database: string | undefined): Promise<void> {
  const bench = await startHistoryServer(database);
  try {
    await bench.fill(JOBS);
    await finishAll(bench);
    // The table as autovacuum leaves it once it has caught up: dead rows gone, pages marked all-visible.
    if (database && opts.vacuum) await runStatement(database, 'VACUUM ANALYZE jobs');
    await settle();
    for (const [name, read] of readsOf(bench)) {
      await read(); // warm: the statements prepared, the pages cached
      const neighbourReads = readNeighbourMeanwhile(bench.store.jobs, bench.neighbour.id);
      const took: number[] = [];
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        await read();
        took.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      const waits = await neighbourReads.stop();
      const ms = (value: number) => value.toFixed(1).padStart(10);
      console.log(
        `${label.padEnd(12)}${name.padEnd(28)}${ms(percentile(took, 50))}${String(waits.length).padStart(8)}` +
          `${ms(percentile(waits, 50))}${ms(percentile(waits, 99))}${ms(Math.max(...waits))}`,
      );
    }
  } finally {
    await bench.close();
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `an endpoint with ${JOBS} finished jobs read ${READS} times each way, ${PAUSE_MS} ms apart; another endpoint's job read meanwhile, a millisecond apart\n`,
);
console.log(
  `${'store'.padEnd(12)}${'read'.padEnd(28)}${'p50, ms'.padStart(10)}${'reads'.padStart(8)}` +
    `${'wait p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)}`,
);
if (STORES.includes('sqlite')) await measure('SQLite', undefined);
if (!STORES.includes('postgres')) process.exit(0);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', url));
else console.log('PostgreSQL skipped: set GANTRY_BENCH_POSTGRES_URL to measure it');
process.exit(0);
