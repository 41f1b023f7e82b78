// What PostgreSQL sustains for the job statements alone, without HTTP: concurrent loops in this
// process make the store calls the API makes for each job (submit, the status read before a
// runsync's wait, take, completion; the waiter answers from the completion's row), so the store
// groups them exactly as a busy replica does. Prints jobs/s, round trips per job and CPU per job
// of this process and of the PostgreSQL backends serving it, per number of loops.
// Run: npm run bench:postgres-ceiling -- [--jobs 5000] [--loops 1,8,32,128]
// PostgreSQL comes from GANTRY_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test);
// the run works in a fresh schema, dropped afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { cpuSeconds, ms } from './lib/measure.js';
import { countQueries } from './lib/query-counter.js';
import { backendsOf } from './lib/postgres-backends.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '5000' },
    loops: { type: 'string', default: '1,8,32,128' },
  },
});
const JOBS = Number(opts.jobs);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const queries = countQueries();

/** CPU of the PostgreSQL backends serving this process (other sessions on the server do not count). */
function postgresCpu(): number {
  return backendsOf(POSTGRES, [process.pid]).reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum;
    }
  }, 0);
}

const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function run(store: PostgresStore, loops: number): Promise<string[]> {
  const endpointId = `ceiling-${loops}`;
  let next = 0;
  const before = { pg: postgresCpu(), own: ownCpu(), queries: queries() };
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      const worker = `w${loop}`;
      while (next < JOBS) {
        next++;
        const now = Date.now();
        const id = randomUUID();
        await store.jobs.insert({
          id,
          endpointId,
          accountId: 'bench',
          input: '{"n":1}',
          webhook: null,
          s3Config: null,
          executionTimeoutMs: 600_000,
          lowPriority: false,
          retentionMs: 600_000,
          ttlMs: 86_400_000,
          submittedAt: now,
          expiresAt: now + 86_400_000,
        });
        await store.jobs.getState(id);
        const taken = await store.jobs.take(endpointId, worker, 4, now, now + 60_000);
        for (const job of taken) {
          const result = { status: 'COMPLETED' as const, output: '{"ok":true}', error: null, completedAt: Date.now() };
          await store.jobs.complete(job.id, ['IN_QUEUE', 'IN_PROGRESS'], result, endpointId, { workerId: worker, late: true });
        }
      }
    }),
  );
  const seconds = ms(started) / 1000;
  const perJob = (v: number) => ((v * 1000) / JOBS).toFixed(3);
  return [
    String(loops),
    (JOBS / seconds).toFixed(0),
    ((queries() - before.queries) / JOBS).toFixed(2),
    perJob(ownCpu() - before.own),
    perJob(postgresCpu() - before.pg),
  ];
}

const schema = `gantry_ceiling_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: POSTGRES });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  const store = await PostgresStore.open({ url: POSTGRES, max: 16, schema });
  console.log(`${JOBS} jobs per row; each job: submit, status read, take (batch 4), completion`);
  const header = ['loops', 'jobs/s', 'round trips/job', 'store CPU ms/job', 'PostgreSQL CPU ms/job'];
  console.log(header.map((h) => h.padStart(22)).join(''));
  for (const loops of opts.loops.split(',').map(Number)) {
    console.log((await run(store, loops)).map((c) => c.padStart(22)).join(''));
  }
  await store.close();
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
