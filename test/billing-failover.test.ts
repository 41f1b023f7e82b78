// Metering across a leader failover on PostgreSQL: the leader dies in the middle of recording
// (its session is killed while its append waits, so the transaction never commits), another
// replica takes over and continues from where the records end, and a former leader still
// metering records nothing twice. The volume is billed for exactly the time it existed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { NO_POSTGRES, createPostgresSchema } from './support/test-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { Meter } from '../src/services/metering/meter.js';
import { VolumeUsageSource } from '../src/services/metering/volume-source.js';
import { BillingService } from '../src/services/billing/billing.js';
import { PriceTable } from '../src/domain/price-table.js';
import { loadCatalog } from '../src/catalog/catalog.js';
import { silentLogger } from '../src/domain/logger.js';
import { ManualTime } from './support/manual-time.js';
import { until } from './support/runtime-rig.js';

const CATALOG = new URL('./fixtures/billing-catalog.json', import.meta.url).pathname;
const HOUR = 3_600_000;
const time = new ManualTime();
const T0 = time.now();
const errors: unknown[] = [];
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
const stores: PostgresStore[] = [];

async function replica(): Promise<{ store: PostgresStore; meter: Meter }> {
  // One connection each, so the test knows which session is a replica's.
  const store = await PostgresStore.open({ url: schema.url, max: 1 });
  stores.push(store);
  const meter = new Meter({
    store: store.usage,
    sources: [new VolumeUsageSource(store)],
    everyMs: HOUR,
    log: silentLogger,
    now: time.now,
    scheduler: time,
  });
  return { store, meter };
}

before(async () => {
  if (NO_POSTGRES) return;
  schema = await createPostgresSchema();
});

after(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
  await schema?.drop();
});

test('a leader dying mid-append loses nothing and a stale leader doubles nothing', { skip: NO_POSTGRES }, async () => {
  const leader = await replica();
  await leader.store.ensureAccount({ id: 'acct-1', name: 'billing-failover', createdAt: new Date(T0).toISOString() });
  const at = new Date(T0).toISOString();
  await leader.store.insertNetworkVolume({
    id: 'vol-1',
    accountId: 'acct-1',
    spec: { name: 'v', size: 100, dataCenterId: 'US-TX-3', type: 'STANDARD' },
    createdAt: at,
    updatedAt: at,
  });

  time.advance(HOUR);
  await leader.meter.runNow();
  const leaderPid = (await leader.store.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  // The leader's next pass waits on the subject's lock, held here; then its session dies.
  const blocker = new pg.Client({ connectionString: schema.url });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['usage:volume:vol-1']);
  time.advance(HOUR);
  const dying = new Meter({
    store: leader.store.usage,
    sources: [new VolumeUsageSource(leader.store)],
    everyMs: HOUR,
    log: { ...silentLogger, warn: (err: unknown) => errors.push(err) } as typeof silentLogger,
    now: time.now,
  });
  const pass = dying.runNow();
  await until(async () => {
    const { rows } = await blocker.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'advisory'", [leaderPid]);
    return rows.length === 1;
  }, "the leader's append to wait on the lock");
  await blocker.query('SELECT pg_terminate_backend($1)', [leaderPid]);
  await pass;
  assert.equal(errors.length, 1, "the dying leader's pass failed");
  await blocker.query('COMMIT');
  await blocker.end();

  // Another replica leads from T0+2.5h; the former one, not knowing, meters too.
  const next = await replica();
  const stale = await replica();
  time.advance(HOUR / 2);
  await next.meter.runNow();
  time.advance(HOUR / 2);
  await Promise.all([next.meter.runNow(), stale.meter.runNow()]);
  time.advance(HOUR);
  await next.meter.runNow();

  const intervals = await next.store.usage.list({ accountId: 'acct-1', fromMs: T0, toMs: T0 + 10 * HOUR });
  const spans = intervals.map((i) => [(i.fromMs - T0) / HOUR, (i.toMs - T0) / HOUR]);
  // One steady subject: one row, from its creation to the last pass, whoever recorded each part.
  assert.deepEqual(spans, [[0, 4]]);
  const billing = new BillingService(next.store.usage, new PriceTable(loadCatalog(CATALOG).data), time.now);
  const bill = await billing.networkVolumes('acct-1', {
    startTime: new Date(T0).toISOString(),
    endTime: new Date(T0 + 4 * HOUR).toISOString(),
  });
  // 100 GB × 4 h at $0.72 per GB and 720-hour month.
  assert.equal(bill.metadata.totals.totalAmount, 0.4);
});
