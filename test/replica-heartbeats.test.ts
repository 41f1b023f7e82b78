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
