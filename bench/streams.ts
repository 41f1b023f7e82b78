// Stream benchmark: workers posting output chunks to job-stream, as a worker streaming tokens
// does, on SQLite and (with GANTRY_BENCH_POSTGRES_URL) PostgreSQL. `--streams` jobs are taken at
// once and each gets `--chunks` chunks posted one after another; prints chunks/s, server CPU per
// chunk (with the PostgreSQL server's processes) and, on PostgreSQL, statements per chunk.
// Run: npm run bench:streams -- [--streams 8] [--chunks 2000] [--repeat 3]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { median } from './lib/measure.js';
import { postgresPids, withSchema } from './lib/postgres-schema.js';
import { call, cpuOfPids, queryCount, startTarget, stopTarget, type Target } from './lib/queue-load.js';

const { values: opts } = parseArgs({
  options: {
    streams: { type: 'string', default: '8' },
    chunks: { type: 'string', default: '2000' },
    repeat: { type: 'string', default: '3' },
  },
});
const STREAMS = Number(opts.streams);
const CHUNKS = Number(opts.chunks);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;

interface StreamFigures {
  chunksPerSecond: number;
  cpuMsPerChunk: number;
  statementsPerChunk: number;
}

/** One round: STREAMS jobs taken, CHUNKS chunks posted to each, then their results. */
async function round(t: Target, cpuPids: () => number[], counted: boolean): Promise<StreamFigures> {
  const jobs = await Promise.all(Array.from({ length: STREAMS }, () => call(t, 0, 'POST', '/run', t.apiKey, { input: {} })));
  const taken = await Promise.all(jobs.map((_, w) => call(t, w, 'GET', `/job-take/s${w}`, t.workerKey)));
  const node = t.nodes[0]!;
  const statementsBefore = counted ? (await queryCount(node)).queries : 0;
  const cpuBefore = cpuOfPids(cpuPids());
  const started = performance.now();
  await Promise.all(
    taken.map(async (take, w) => {
      for (let c = 0; c < CHUNKS; c++)
        await call(t, w, 'POST', `/job-stream/s${w}/${take.json.id}`, t.workerKey, { output: `token ${c} ` });
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuOfPids(cpuPids()) - cpuBefore;
  const statements = counted ? (await queryCount(node)).queries - statementsBefore : 0;
  await Promise.all(taken.map((take, w) => call(t, w, 'POST', `/job-done/s${w}/${take.json.id}`, t.workerKey, { output: 'done' })));
  const chunks = STREAMS * CHUNKS;
  return { chunksPerSecond: chunks / seconds, cpuMsPerChunk: (cpu * 1000) / chunks, statementsPerChunk: statements / chunks };
}

async function measure(name: string, env: Record<string, string>, database: boolean): Promise<void> {
  const target = await startTarget(name, 'bench/lib/gantry-server.ts', false, env, database ? postgresPids : () => []);
  const cpuPids = () => [target.nodes[0]!.child.pid!, ...target.cpuPids()];
  try {
    await round(target, cpuPids, database); // warm-up
    const runs: StreamFigures[] = [];
    for (let r = 0; r < Number(opts.repeat); r++) runs.push(await round(target, cpuPids, database));
    const middle = median(runs.map((r) => r.chunksPerSecond));
    const m = runs.find((r) => r.chunksPerSecond === middle)!;
    const statements = database ? `, ${m.statementsPerChunk.toFixed(2)} statements per chunk` : '';
    console.log(`${name.padEnd(12)} ${m.chunksPerSecond.toFixed(0)} chunks/s, CPU ${m.cpuMsPerChunk.toFixed(3)} ms per chunk${statements}`);
  } finally {
    await stopTarget(target);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(`${STREAMS} streams at once, ${CHUNKS} chunks each, median of ${opts.repeat} runs\n`);
await measure('SQLite', {}, false);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', { BENCH_DATABASE: url }, true));
else console.log('PostgreSQL: skipped (set GANTRY_BENCH_POSTGRES_URL to measure it)');
process.exit(0);
