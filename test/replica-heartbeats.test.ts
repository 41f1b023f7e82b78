// Replicas share their workers through the database on a heartbeat. A replica whose machine's
// clock is wrong still shows its workers on the others and still counts as live: every time in a
// heartbeat is the database's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createPool } from '../src/store/postgres/database.js';
import { migratePostgres, postgresSchemaVersion } from '../src/store/postgres/migrate.js';
import { ReplicaWorkers } from '../src/cluster/replica-workers.js';
import type { WorkerRow } from '../src/domain/workers.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { withClockOff } from './support/manual-time.js';
import { WorkerDirectory } from '../src/services/worker-directory.js';
import { WorkerRegistry } from '../src/runtime/worker-registry.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (replica heartbeats)`);
const skip = NO_POSTGRES ?? false;

let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let pool: pg.Pool;
before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  pool = createPool({ url: schema.url, max: 2 });
  await migratePostgres(pool);
});
after(async () => {
  if (skip) return;
  await pool.end();
  await schema.drop();
});

const workerRow = (id: string): WorkerRow => ({
  id,
  status: 'IDLE',
  isStale: false,
  version: null,
  gpuCount: 0,
  image: null,
  uptimeSeconds: 1,
  gpuTypeId: null,
  dataCenterId: null,
  startedAt: null,
  managed: false,
});

for (const [clock, offsetMs] of [
  ['an hour behind', -3_600_000],
  ['an hour ahead', 3_600_000],
] as const) {
  test(`a replica whose clock is ${clock} shows its workers on the others, and both count each other as live`, { skip }, async () => {
    const fresh = 3000;
    const skewed = new ReplicaWorkers(pool, `skewed-${offsetMs}`, () => 'http://127.0.0.1:21', fresh, postgresSchemaVersion());
    const other = new ReplicaWorkers(pool, `other-${offsetMs}`, () => 'http://127.0.0.1:22', fresh, postgresSchemaVersion());
    try {
      await other.beat([{ endpointId: 'ep-1', row: workerRow(`w-other-${offsetMs}`) }]);
      await withClockOff(offsetMs, () => skewed.beat([{ endpointId: 'ep-1', row: workerRow(`w-skewed-${offsetMs}`) }]));
      await other.beat([{ endpointId: 'ep-1', row: workerRow(`w-other-${offsetMs}`) }]);
      assert.deepEqual(
        other.of('ep-1').map((w) => w.id),
        [`w-skewed-${offsetMs}`],
        "the other replica sees the skewed one's worker",
      );
      await withClockOff(offsetMs, () => skewed.beat([{ endpointId: 'ep-1', row: workerRow(`w-skewed-${offsetMs}`) }]));
      assert.deepEqual(
        skewed.of('ep-1').map((w) => w.id),
        [`w-other-${offsetMs}`],
        "the skewed replica sees the other's worker",
      );
      assert.ok((other.otherReplicas ?? 0) >= 1 && (skewed.otherReplicas ?? 0) >= 1, 'each counts the other as live');
    } finally {
      await skewed.close();
      await other.close();
    }
  });
}

test("another replica's workers show their uptime, whatever that replica's clock says", { skip }, async () => {
  const owner = new ReplicaWorkers(pool, 'owner-behind', () => 'http://127.0.0.1:23', 3000, postgresSchemaVersion());
  const reader = new ReplicaWorkers(pool, 'reader', () => 'http://127.0.0.1:24', 3000, postgresSchemaVersion());
  try {
    const startedAt = new Date(Date.now() - 3_600_000 - 90_000).toISOString();
    await withClockOff(-3_600_000, () =>
      owner.beat([
        { endpointId: 'ep-uptime', row: { ...workerRow('w-managed'), uptimeSeconds: 90, startedAt, managed: true } },
        { endpointId: 'ep-uptime', row: { ...workerRow('w-by-hand'), uptimeSeconds: 40 } },
      ]),
    );
    await reader.beat([]);
    const directory = new WorkerDirectory(new WorkerRegistry(3000), undefined, 3000, reader);
    const uptimes = Object.fromEntries(directory.list('ep-uptime', 1).map((w) => [w.id, w.uptimeSeconds]));
    assert.ok(
      uptimes['w-managed']! >= 90 && uptimes['w-managed']! <= 92,
      `the managed worker has run 90 s, not an hour more: ${uptimes['w-managed']}`,
    );
    assert.ok(
      uptimes['w-by-hand']! >= 40 && uptimes['w-by-hand']! <= 42,
      `the hand-started worker's uptime is shown: ${uptimes['w-by-hand']}`,
    );
  } finally {
    await owner.close();
    await reader.close();
  }
});
