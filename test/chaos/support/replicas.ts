// Two or more `gantry serve` replicas on one throwaway PostgreSQL database, started one after the
// other so the first one deterministically becomes the leader and prints the admin key.
import type { Cleanup } from './cleanup.js';
import { GantryProcess } from './gantry-process.js';
import { waitFor } from './bounded.js';
import type { ThrowawayDatabase } from './postgres.js';

export interface ReplicaSet {
  replicas: GantryProcess[];
  adminKey: string;
}

export async function startReplicas(db: ThrowawayDatabase, cleanup: Cleanup, count: number, extraArgs: string[] = []): Promise<ReplicaSet> {
  const dataDir = cleanup.tempDir('replicas');
  const args = [
    '--database',
    db.url,
    '--data-dir',
    dataDir,
    '--worker-provider',
    'none',
    // Short leases and sweeps so a dead replica's jobs and leadership move within seconds.
    '--job-lease-ms',
    '1500',
    '--sweep-interval-ms',
    '100',
    '--leader-lease-ms',
    '1000',
    '--take-wait-ms',
    '1000',
    '--worker-ping-interval-ms',
    '300',
    ...extraArgs,
  ];
  const first = await GantryProcess.start({ args });
  cleanup.add(`kill replica ${first.url}`, () => first.kill());
  await waitFor('the first replica holds the leader lease', async () => (await db.leaderUrl()) === first.url, {
    timeoutMs: 15_000,
    stepMs: 100,
  });
  const replicas = [first];
  for (let i = 1; i < count; i++) {
    const next = await GantryProcess.start({ args });
    cleanup.add(`kill replica ${next.url}`, () => next.kill());
    replicas.push(next);
  }
  if (!first.adminKey) throw new Error(`the first replica on an empty database prints the admin key: ${first.output()}`);
  return { replicas, adminKey: first.adminKey };
}
