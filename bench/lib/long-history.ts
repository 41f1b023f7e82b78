// Benchmarks of an endpoint with a long history, in the benchmark's own process: a server with two
// endpoints (one to fill, one whose job is read meanwhile), the history written through the store,
// and what another client waits for while something heavy runs (on SQLite the store and the event
// loop are shared).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewJob } from '../../src/store/job-store.js';
import { benchEndpoint } from './bench-endpoint.js';
import { loadConfig, startServer } from './gantry-modules.js';

/** Jobs written per store call while a history is built (one turn's worth). */
const FILL_BATCH = 2000;

export type HistoryServer = Awaited<ReturnType<typeof startHistoryServer>>;

/** A server on `database` (SQLite when undefined), with `history` and `kept`, two endpoints of one account. */
export async function startHistoryServer(database: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-history-'));
  const config = loadConfig({ dataDir, port: '0', logLevel: 'silent', workerProvider: 'none', ...(database ? { database } : {}) }, {});
  const server = await startServer(config);
  const { store, endpoints, apiKeys } = server.services;
  const accountId = (await apiKeys.create({ name: 'bench' })).record.accountId;
  const history = await endpoints.create(accountId, benchEndpoint('history'));
  const kept = await endpoints.create(accountId, benchEndpoint('kept'));
  const neighbour = benchJob(kept.id, accountId, 0);
  await store.jobs.insert(neighbour);
  return {
    services: server.services,
    store,
    accountId,
    history,
    /** A job of the other endpoint, to read while the history is busy. */
    neighbour,
    /** Queues `count` jobs on the history endpoint, numbered from `from`. */
    async fill(count: number, from = 0): Promise<void> {
      for (let n = from; n < from + count; n += FILL_BATCH) {
        const batch = Math.min(FILL_BATCH, from + count - n);
        await Promise.all(Array.from({ length: batch }, (_, i) => store.jobs.insert(benchJob(history.id, accountId, n + i))));
      }
    },
    async close(): Promise<void> {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Lets background work after a fill (checkpoints) settle, so what follows is measured alone. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2000));
}

interface JobStoreReads {
  get(id: string): Promise<unknown>;
}

/**
 * Starts reading `jobId` again and again, a millisecond apart; `stop` ends it and answers each
 * read's wait in ms, counted from when it was due, so a read held back by a blocked event loop
 * counts the time it could not even start.
 */
export function readNeighbourMeanwhile(jobs: JobStoreReads, jobId: string): { stop(): Promise<number[]> } {
  const waits: number[] = [];
  let reading = true;
  const loop = (async () => {
    while (reading) {
      const due = performance.now() + 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
      await jobs.get(jobId);
      waits.push(Math.max(0, performance.now() - due));
    }
  })();
  return {
    async stop() {
      reading = false;
      await loop;
      return waits;
    },
  };
}

/** A small queued job of the benchmark, kept a day. */
export function benchJob(endpointId: string, accountId: string, n: number): NewJob {
  const now = Date.now();
  return {
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
    submittedAt: now,
    expiresAt: now + 86_400_000,
  };
}
