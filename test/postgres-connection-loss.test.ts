// A connection terminated while a transaction holds it: the process keeps running, the
// transaction fails as "database unavailable" (503 to a client), the loss is logged with its
// code, and the pool serves the next query on a fresh connection.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createPool, transaction } from '../src/store/postgres/database.js';
import { silentLogger, type Logger } from '../src/domain/logger.js';
import { whyStoreUnavailable } from '../src/store/unavailable.js';
import { NO_POSTGRES } from './support/test-store.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { sleep } from './support/live.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (connection loss)`);
const skip = NO_POSTGRES ?? false;

let db: ThrowawayDatabase;
let pool: pg.Pool;
const warnings: { fields: object; msg: string }[] = [];
const log: Logger = { ...silentLogger, warn: (fields, msg) => void warnings.push({ fields, msg }) };

before(async () => {
  if (skip) return;
  db = await createThrowawayDatabase('gantry_storm');
  pool = createPool({ url: db.url, max: 2 }, log);
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

test('a connection cut while a transaction holds it fails that transaction as unavailable, and the pool carries on', { skip }, async () => {
  const failure = await transaction(pool, async (client) => {
    await db.terminateBackends();
    // The connection breaks while no query runs on it: the moment pg-pool leaves unguarded.
    await sleep(300);
    await client.query('SELECT 1');
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(failure, 'the transaction failed');
  assert.ok(whyStoreUnavailable(failure), `a client is told to retry, not shown a fault: ${String(failure)}`);
  assert.deepEqual(
    warnings.filter((w) => w.msg === 'database connection lost').map((w) => (w.fields as { code: string }).code),
    ['57P01'],
  );
  assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
});
