// Sweep benchmark: how long one pass of the sweeper (timeouts, lapsed leases, expiries) holds the
// leading process while many jobs run and none is due, the usual case. The pass runs every
// `--sweep-interval-ms` (500 by default); on SQLite it runs on the server's only thread, so its
// length is a pause in every answer.
// Run: npm run bench:sweeps -- [--running 1000,10000,50000] [--endpoints 4] [--passes 21]
// PostgreSQL too when GANTRY_BENCH_POSTGRES_URL is set (a schema of its own, dropped afterwards).
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { median } from './lib/measure.js';
import { runStatement, withSchema } from './lib/postgres-schema.js';
import { benchJob, settle, startHistoryServer } from './lib/long-history.js';
import { benchEndpoint } from './lib/bench-endpoint.js';

const { values: opts } = parseArgs({
  options: {
    running: { type: 'string', default: '1000,10000,50000' },
    endpoints: { type: 'string', default: '4' },
    passes: { type: 'string', default: '21' },
  },
});
const RUNNING = opts.running.split(',').map(Number);
const ENDPOINTS = Number(opts.endpoints);
const PASSES = Number(opts.passes);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;
const FILL_BATCH = 2000;
const HOUR = 3_600_000;

/** Median length of a sweep pass, in ms, with `running` jobs held by workers over the endpoints. */
async function passMs(database: string | undefined, running: number): Promise<number> {
  const bench = await startHistoryServer(database);
  try {
    const { endpoints, store, sweeper } = bench.services;
    const queues = [bench.history.id];
    for (let e = 1; e < ENDPOINTS; e++) queues.push((await endpoints.create(bench.accountId, benchEndpoint(`running-${e}`))).id);
    for (let n = 0; n < running; n += FILL_BATCH) {
      const count = Math.min(FILL_BATCH, running - n);
      const now = Date.now();
      await store.jobs.insertAll(
        Array.from({ length: count }, (_, i) => ({
          ...benchJob(queues[(n + i) % queues.length]!, bench.accountId, n + i),
          handedTo: { workerId: `worker-${(n + i) % 64}`, startedAt: now, leaseUntil: now + HOUR },
        })),
      );
    }
    // The statistics autovacuum gathers within a minute of such a fill, as a deployment has them.
    if (database) await runStatement(database, 'ANALYZE jobs');
    await settle();
    const lengths: number[] = [];
    for (let p = 0; p < PASSES; p++) {
      const started = performance.now();
      await sweeper.sweep();
      lengths.push(performance.now() - started);
    }
    return median(lengths);
  } finally {
    await bench.close();
  }
}

async function measure(label: string, database: string | undefined): Promise<void> {
  const cells = [];
  for (const running of RUNNING) cells.push((await passMs(database, running)).toFixed(2).padStart(12));
  console.log(`${label.padEnd(12)}${cells.join('')}`);
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`one sweep pass, median of ${PASSES}, in ms, with this many jobs running over ${ENDPOINTS} endpoints (none due)\n`);
console.log(`${'store'.padEnd(12)}${RUNNING.map((n) => String(n).padStart(12)).join('')}`);
await measure('SQLite', undefined);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', url));
else console.log('PostgreSQL skipped: set GANTRY_BENCH_POSTGRES_URL to measure it');
process.exit(0);
