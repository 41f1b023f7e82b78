// Large inputs: what a job's input costs the reads that do not show it. A job with an input of
// each `--sizes` KB is submitted, taken and completed; then its status is read `--reads` times,
// one after another, as a client polling it does. Prints the status read's p50 and the server's
// CPU per read (with the PostgreSQL server's processes), on SQLite and (with
// GANTRY_BENCH_POSTGRES_URL) PostgreSQL.
// Run: npm run bench:large-inputs -- [--sizes 1,100,1000] [--reads 300]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { percentile } from './lib/measure.js';
import { postgresPids, withSchema } from './lib/postgres-schema.js';
import { call, cpuOfPids, startTarget, stopTarget, type Target } from './lib/queue-load.js';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,100,1000' },
    reads: { type: 'string', default: '300' },
  },
});
const SIZES = opts.sizes.split(',').map(Number);
const READS = Number(opts.reads);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;

/** A finished job with an input of `kb` KB, then READS status reads of it: their p50 and CPU per read. */
async function statusReads(t: Target, cpuPids: number[], kb: number): Promise<{ p50: number; cpuMs: number }> {
  const submitted = await call(t, 0, 'POST', '/run', t.apiKey, { input: { data: 'x'.repeat(kb * 1024) } });
  const taken = await call(t, 0, 'GET', '/job-take/large', t.workerKey);
  if (taken.json.id !== submitted.json.id) throw new Error('the worker took another job');
  await call(t, 0, 'POST', `/job-done/large/${submitted.json.id}`, t.workerKey, { output: 'done' });
  const path = `/status/${submitted.json.id}`;
  for (let i = 0; i < 20; i++) await call(t, 0, 'GET', path, t.apiKey); // warm-up
  const times: number[] = [];
  const cpuBefore = cpuOfPids(cpuPids);
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const answer = await call(t, 0, 'GET', path, t.apiKey);
    times.push(performance.now() - started);
    if (answer.json.status !== 'COMPLETED') throw new Error(`status ${String(answer.json.status)}`);
  }
  return { p50: percentile(times, 50), cpuMs: ((cpuOfPids(cpuPids) - cpuBefore) * 1000) / READS };
}

async function measure(name: string, env: Record<string, string>, database: boolean): Promise<void> {
  const target = await startTarget(name, 'bench/lib/gantry-server.ts', false, env, database ? postgresPids : () => []);
  try {
    for (const kb of SIZES) {
      const { p50, cpuMs } = await statusReads(target, [target.nodes[0]!.child.pid!, ...target.cpuPids()], kb);
      console.log(
        `${name.padEnd(12)} input ${String(kb).padStart(5)} KB: status read p50 ${p50.toFixed(3)} ms, CPU ${cpuMs.toFixed(3)} ms per read`,
      );
    }
  } finally {
    await stopTarget(target);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`${READS} status reads of one finished job per input size\n`);
await measure('SQLite', {}, false);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', { BENCH_DATABASE: url }, true));
else console.log('PostgreSQL: skipped (set GANTRY_BENCH_POSTGRES_URL to measure it)');
process.exit(0);
