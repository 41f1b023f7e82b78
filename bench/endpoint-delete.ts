// Endpoint delete benchmark: an endpoint with a long job history is deleted through Gantry's
// endpoint service while another endpoint's job is read again and again, in the same process, as
// a request of another client would be. Prints how long the delete takes and how long those reads
// wait meanwhile (the event loop and the store they share).
// Run: npm run bench:endpoint-delete -- [--jobs 1000000] [--repeat 1]
// PostgreSQL too when GANTRY_BENCH_POSTGRES_URL is set (a schema of its own, dropped afterwards).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig, startServer } from './lib/gantry-modules.js';
import { percentile } from './lib/measure.js';
import { withSchema } from './lib/postgres-schema.js';

const { values: opts } = parseArgs({ options: { jobs: { type: 'string', default: '1000000' }, repeat: { type: 'string', default: '1' } } });
const JOBS = Number(opts.jobs);
const REPEAT = Number(opts.repeat);
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL;
/** Jobs written per store call while the history is built (one turn's worth). */
const FILL_BATCH = 2000;

interface DeleteFigures {
  deleteMs: number;
  reads: number[];
}

async function run(database: string | undefined): Promise<DeleteFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-delete-'));
  const config = loadConfig({ dataDir, port: '0', logLevel: 'silent', workerProvider: 'none', ...(database ? { database } : {}) }, {});
  const server = await startServer(config);
  try {
    const { store, endpoints, apiKeys } = server.services;
    const key = await apiKeys.create({ name: 'bench' });
    const accountId = key.record.accountId;
    const spec = {
      type: 'QUEUE' as const,
      image: 'bench/noop',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
      scaling: { type: 'QUEUE_DELAY' as const, queueDelay: 60 },
      workers: { min: 0, max: 0 },
    };
    const doomed = await endpoints.create(accountId, { ...spec, name: 'doomed' });
    const kept = await endpoints.create(accountId, { ...spec, name: 'kept' });
    const job = (endpointId: string, n: number) => ({
      id: `bench-${endpointId}-${n}`,
      endpointId,
      accountId,
      input: JSON.stringify({ n }),
      webhook: null,
      s3Config: null,
      executionTimeoutMs: 600_000,
      lowPriority: false,
      retentionMs: 86_400_000,
      ttlMs: 86_400_000,
      submittedAt: Date.now(),
      expiresAt: Date.now() + 86_400_000,
    });
    for (let n = 0; n < JOBS; n += FILL_BATCH) {
      await Promise.all(Array.from({ length: Math.min(FILL_BATCH, JOBS - n) }, (_, i) => store.jobs.insert(job(doomed.id, n + i))));
    }
    const neighbour = job(kept.id, 0);
    await store.jobs.insert(neighbour);
    // Let background work after the fill (checkpoints) settle, so the delete is measured alone.
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const reads: number[] = [];
    let deleting = true;
    const reader = (async () => {
      while (deleting) {
        const started = performance.now();
        await store.jobs.get(neighbour.id);
        reads.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const started = performance.now();
    await endpoints.delete(accountId, doomed.id);
    const deleteMs = performance.now() - started;
    deleting = false;
    await reader;
    return { deleteMs, reads };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
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
