// Large jobs: what a job's input and output cost the steps that do not need them again. Jobs with
// an input of each `--sizes` KB are submitted, taken and completed one after another: the bytes the
// server's processes wrote to disk per job (from /proc/<pid>/io), against the input's size. Then
// one finished job's status is read `--reads` times, as a client polling it does, and a page of 50
// queued jobs of that size is listed as often. Last, jobs with a small input and an output of each
// size, without and with a webhook (delivered to a receiver on this machine before the next job),
// and as often failed jobs whose error text is of each size (a long traceback, say): the bytes
// written and the CPU spent per job. Prints each read's p50 and the server's CPU per read
// (with the PostgreSQL server's processes), on SQLite and (with GANTRY_BENCH_POSTGRES_URL) PostgreSQL.
// Run: npm run bench:large-jobs -- [--sizes 1,100,1000] [--reads 300]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { percentile } from './lib/measure.js';
import { webhookReceiver } from './lib/webhook-receiver.js';
import { benchEndpoint } from './lib/bench-endpoint.js';
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
/** Jobs per size whose way through the queue is measured. */
const WAY_JOBS = 20;

interface Reads {
  p50: number;
  cpuMs: number;
}

/** READS sequential reads of `path` (a whole API path) after a warm-up: their p50 and the CPU per read of `cpuPids`. */
async function reads(t: Target, cpuPids: number[], path: string): Promise<Reads> {
  const get = async () => {
    const res = await t.nodes[0]!.pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${t.apiKey}` } });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
  };
  for (let i = 0; i < 20; i++) await get();
  const times: number[] = [];
  const cpuBefore = cpuOfPids(cpuPids);
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    await get();
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 50), cpuMs: ((cpuOfPids(cpuPids) - cpuBefore) * 1000) / READS };
}

/** Random base64 of `kb` KB, as an image sent inline is: PostgreSQL would compress repeated text to next to nothing. */
const dataOf = (kb: number) => ({ data: randomBytes(kb * 768).toString('base64') });
const inputOf = (kb: number) => ({ input: dataOf(kb) });

/** Bytes the processes have caused to be written to storage so far (a process gone meanwhile counts 0). */
function bytesWritten(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    try {
      return sum + Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
    } catch {
      return sum;
    }
  }, 0);
}

interface JobShape {
  inputKb: number;
  /** The result's output: a short text unless a size is given. */
  outputKb?: number;
  /** Fails the job with an error text of this size instead. */
  errorKb?: number;
  webhook?: string;
}

/** Submits a job of this shape, takes it and reports its result; answers its id. */
async function runJob(t: Target, shape: JobShape): Promise<string> {
  const body = { ...inputOf(shape.inputKb), ...(shape.webhook ? { webhook: shape.webhook } : {}) };
  const submitted = await call(t, 0, 'POST', '/run', t.apiKey, body);
  const taken = await call(t, 0, 'GET', '/job-take/large', t.workerKey);
  if (taken.json.id !== submitted.json.id) throw new Error('the worker took another job');
  const output = shape.outputKb === undefined ? 'done' : dataOf(shape.outputKb);
  const result = shape.errorKb === undefined ? { output } : { error: dataOf(shape.errorKb).data };
  await call(t, 0, 'POST', `/job-done/large/${submitted.json.id}`, t.workerKey, result);
  return submitted.json.id as string;
}

interface Way {
  /** MB the server's processes wrote to disk per job. */
  writtenMb: number;
  /** CPU of the server's processes (the database server's included) per job, ms. */
  cpuMs: number;
}

/** WAY_JOBS jobs of this shape through the queue, one after another, each done once `settled` resolves. */
async function wayThrough(t: Target, shape: JobShape, settled: (jobId: string) => Promise<unknown> = async () => {}): Promise<Way> {
  // Asked afresh: the PostgreSQL backends that write the jobs' WAL may have started since.
  const pids = () => [t.nodes[0]!.child.pid!, ...t.cpuPids()];
  await settled(await runJob(t, shape));
  const [writtenBefore, cpuBefore] = [bytesWritten(pids()), cpuOfPids(pids())];
  for (let i = 0; i < WAY_JOBS; i++) await settled(await runJob(t, shape));
  return {
    writtenMb: (bytesWritten(pids()) - writtenBefore) / WAY_JOBS / 1e6,
    cpuMs: ((cpuOfPids(pids()) - cpuBefore) * 1000) / WAY_JOBS,
  };
}

/** A finished job with an input of `kb` KB, its status read READS times. */
async function statusReads(t: Target, cpuPids: number[], kb: number): Promise<Reads> {
  return reads(t, cpuPids, `/v2/${t.endpointId}/status/${await runJob(t, { inputKb: kb })}`);
}

/** 50 queued jobs with inputs of `kb` KB on an endpoint of their own, listed READS times as one page. */
async function listReads(t: Target, cpuPids: number[], kb: number): Promise<Reads> {
  const created = await t.nodes[0]!.pool.request({
    method: 'POST',
    path: '/v2/serverless',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(benchEndpoint(`list-${kb}`)),
  });
  const { id } = (await created.body.json()) as { id: string };
  for (let i = 0; i < 50; i++) await call({ ...t, endpointId: id }, 0, 'POST', '/run', t.apiKey, inputOf(kb));
  return reads(t, cpuPids, `/v2/serverless/${id}/jobs?limit=50`);
}

async function measure(name: string, env: Record<string, string>, database: boolean): Promise<void> {
  const target = await startTarget(name, 'bench/lib/gantry-server.ts', false, env, database ? postgresPids : () => []);
  const receiver = await webhookReceiver();
  try {
    const pids = [target.nodes[0]!.child.pid!, ...target.cpuPids()];
    for (const kb of SIZES) {
      const written = (await wayThrough(target, { inputKb: kb })).writtenMb;
      const status = await statusReads(target, pids, kb);
      const list = await listReads(target, pids, kb);
      console.log(
        `${name.padEnd(11)} input ${String(kb).padStart(5)} KB: written per job ${written.toFixed(3)} MB;` +
          ` status read p50 ${status.p50.toFixed(3)} ms, CPU ${status.cpuMs.toFixed(3)} ms;` +
          ` page of 50 p50 ${list.p50.toFixed(3)} ms, CPU ${list.cpuMs.toFixed(3)} ms`,
      );
    }
    for (const result of ['output', 'error'] as const) {
      for (const kb of SIZES) {
        const shape = { inputKb: 1, [`${result}Kb`]: kb };
        const plain = await wayThrough(target, shape);
        const hooked = await wayThrough(target, { ...shape, webhook: receiver.url }, receiver.delivered);
        console.log(
          `${name.padEnd(11)} ${result.padStart(6)} ${String(kb).padStart(4)} KB: written per job ${plain.writtenMb.toFixed(3)} MB, CPU ${plain.cpuMs.toFixed(2)} ms;` +
            ` with a webhook ${hooked.writtenMb.toFixed(3)} MB, CPU ${hooked.cpuMs.toFixed(2)} ms`,
        );
      }
    }
  } finally {
    receiver.close();
    await stopTarget(target);
  }
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `${WAY_JOBS} jobs of each size submitted, taken and completed; ${READS} reads of each: the status of one finished job, a page of 50 queued jobs;\n` +
    `then ${WAY_JOBS} jobs with an output of each size, and ${WAY_JOBS} failed with an error text of each size, without and with a webhook\n`,
);
await measure('SQLite', {}, false);
if (POSTGRES) await withSchema(POSTGRES, (url) => measure('PostgreSQL', { BENCH_DATABASE: url }, true));
else console.log('PostgreSQL: skipped (set GANTRY_BENCH_POSTGRES_URL to measure it)');
process.exit(0);
