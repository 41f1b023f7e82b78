// Endpoint delete benchmark: an endpoint with a long job history is deleted through Gantry's
// endpoint service while another endpoint's job is read again and again, in the same process, as
// a request of another client would be. Prints how long the delete takes and how long those reads
// wait meanwhile (the event loop and the store they share).
// Run: npm run bench:endpoint-delete -- [--jobs 1000000] [--repeat 1]
// PostgreSQL too when GANTRY_BENCH_POSTGRES_URL is set (a schema of its own, dropped afterwards).
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { percentile } from './lib/measure.js';
import { withSchema } from './lib/postgres-schema.js';
import { readNeighbourMeanwhile, settle, startHistoryServer } from './lib/long-history.js';

const { values: opts } = parseArgs({ options: { jobs: { type: 'string', default: '1000000' }, repeat: { type: 'string', default: '1' } } });
const JOBS = Number(opts.jobs);
const REPEAT = Number(opts.repeat);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;

interface DeleteFigures {
  deleteMs: number;
  reads: number[];
}

async function run(database: string | undefined): Promise<DeleteFigures> {
  const bench = await startHistoryServer(database);
  try {
    await bench.fill(JOBS);
    await settle();
    const neighbourReads = readNeighbourMeanwhile(bench.store.jobs, bench.neighbour.id);
    const started = performance.now();
    await bench.services.endpoints.delete(bench.accountId, bench.history.id);
    const deleteMs = performance.now() - started;
    return { deleteMs, reads: await neighbourReads.stop() };
  } finally {
    await bench.close();
  }
}

async function measure(label: string, database: string | undefined): Promise<void> {
  for (let r = 0; r < REPEAT; r++) {
    const { deleteMs, reads } = await run(database);
    const at = (p: number) => percentile(reads, p).toFixed(1);
    console.log(
      `${label.padEnd(12)}${deleteMs.toFixed(0).padStart(12)}${String(reads.length).padStart(10)}` +
        `${at(50).padStart(10)}${at(99).padStart(10)}${Math.max(...reads)
          .toFixed(1)
          .padStart(10)}`,
    );
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`an endpoint with ${JOBS} jobs deleted; another endpoint's job read meanwhile, one read a millisecond apart\n`);
console.log(
  `${'store'.padEnd(12)}${'delete, ms'.padStart(12)}${'reads'.padStart(10)}${'p50, ms'.padStart(10)}${'p99, ms'.padStart(10)}${'max, ms'.padStart(10)}`,
);
await measure('SQLite', undefined);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', url));
else console.log('PostgreSQL skipped: set GANTRY_BENCH_POSTGRES_URL to measure it');
process.exit(0);
