// Replicas on one PostgreSQL keep jobs, leases, key expiry and rate windows by the database's
// clock: a replica on a machine whose clock is wrong writes the same times as the others, so none
// of them sees a running job's lease lapse or an expired key still valid.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { spawnSync } from 'node:child_process';
import { DatabaseClock } from '../src/cluster/database-clock.js';
import { Cancellation } from '../src/domain/cancellation.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { startReplica, stopReplica, type Replica } from './support/in-process-replicas.js';
import { withClockOff } from './support/manual-time.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { eventually } from './support/live.js';
import { CLI } from './support/processes.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (the database's clock)`);
const skip = NO_POSTGRES ?? false;
const HOUR = 3_600_000;

let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let pool: pg.Pool;
before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  pool = new pg.Pool({ connectionString: schema.url, max: 2 });
});
after(async () => {
  if (skip) return;
  await pool.end();
  await schema.drop();
});

/** The database's time now (ms): on this machine the database and the test share one clock. */
async function databaseNow(): Promise<number> {
  const { rows } = await pool.query<{ now: string }>('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now');
  return Number(rows[0]!.now);
}

/** A key, a queue endpoint and one job submitted through `replica`'s API. */
async function submitOneJob(replica: Replica, name: string): Promise<{ endpointId: string; jobId: string }> {
  const key = await replica.services.apiKeys.create({ name });
  const auth = { authorization: `Bearer ${key.token}` };
  const created = await replica.app.inject({ method: 'POST', url: '/v2/serverless', headers: auth, payload: queueEndpointBody(name) });
  assert.equal(created.statusCode, 201, created.body);
  const endpointId = created.json<{ id: string }>().id;
  const run = await replica.app.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: auth, payload: { input: { n: 1 } } });
  assert.equal(run.statusCode, 200, run.body);
  return { endpointId, jobId: run.json<{ id: string }>().id };
}

test("a machine an hour behind keeps the database's time once synced", { skip }, async () => {
  const clock = new DatabaseClock(pool, () => Date.now() - HOUR);
  assert.ok(Math.abs(clock.now() - (Date.now() - HOUR)) < 1000, "before its first sync it reads the machine's own clock");
  const offset = await clock.sync();
  assert.ok(Math.abs(offset - HOUR) < 1000, `the offset is about an hour: ${offset} ms`);
  assert.ok(Math.abs(clock.now() - (await databaseNow())) < 1000, "it reads the database's time");
  assert.equal(clock.now() % 1, 0, 'in whole milliseconds');
});

test('a machine clock set right between two syncs is followed at the next one', { skip }, async () => {
  let setRight = false;
  let calls = 0;
  // After it is set right, every read after the query is 20 ms late: a slower round trip than
  // before, which an earlier sample of the wrong clock would win were it kept.
  const clock = new DatabaseClock(pool, () => (setRight ? Date.now() + (calls++ % 2 === 1 ? 20 : 0) : Date.now() - HOUR));
  for (let i = 0; i < 4; i++) await clock.sync();
  setRight = true;
  const offset = await clock.sync();
  assert.ok(Math.abs(offset) < 1000, `the offset follows the clock set right: ${offset} ms`);
});

test('a replica whose clock is an hour behind writes times the other replicas agree with', { skip }, async () => {
  await withClockOff(-HOUR, async () => {
    const replica = await startReplica(schema.url, { jobLeaseMs: '60000', workerSampleIntervalMs: '100' });
    try {
      const { endpointId, jobId } = await submitOneJob(replica, 'clock');
      const [taken] = await replica.services.workerProtocol.take(endpointId, 'worker-1', 1, new Cancellation(), 0);
      assert.equal(taken?.id, jobId);

      const { rows } = await pool.query<{ submitted_at: string; lease_expires_at: string }>(
        'SELECT submitted_at, lease_expires_at FROM jobs WHERE id = $1',
        [jobId],
      );
      const now = await databaseNow();
      assert.ok(Math.abs(Number(rows[0]!.submitted_at) - now) < 5000, 'the job was submitted now by the database’s clock');
      assert.ok(Number(rows[0]!.lease_expires_at) > now + 50_000, 'its lease runs a minute from now by the database’s clock');
      // A replica with a right clock (the real one here) sweeps lapsed leases: this one has not lapsed.
      const released = await replica.store.jobs.releaseLapsedLeases(now, 3, 100);
      assert.deepEqual(released.requeued, [], 'the running job is not sent back to the queue');

      // The leader's samples of workers are charted in windows of the same clock.
      const sampled = await eventually(async () => {
        const samples = await pool.query<{ at_ms: string }>('SELECT at_ms FROM worker_samples WHERE endpoint_id = $1', [endpointId]);
        return samples.rows[0];
      }, 10_000);
      assert.ok(Math.abs(Number(sampled.at_ms) - (await databaseNow())) < 5000, 'worker samples are taken by the database’s clock');

      const expired = await replica.services.apiKeys.create({ name: 'expired', expiresAt: new Date(now - 60_000).toISOString() });
      const refused = await replica.app.inject({
        method: 'GET',
        url: '/v2/serverless',
        headers: { authorization: `Bearer ${expired.token}` },
      });
      assert.equal(refused.statusCode, 401, 'a key that expired a minute ago is refused, though this machine thinks it has an hour left');
    } finally {
      await stopReplica(replica);
    }
  });
});

test('a server an hour behind answers its first request by the database’s clock', { skip }, async () => {
  await withClockOff(-HOUR, async () => {
    const replica = await startReplica(schema.url, {}, { prepareOnly: true });
    try {
      const { jobId } = await submitOneJob(replica, 'first');
      const { rows } = await pool.query<{ submitted_at: string }>('SELECT submitted_at FROM jobs WHERE id = $1', [jobId]);
      assert.ok(
        Math.abs(Number(rows[0]!.submitted_at) - (await databaseNow())) < 5000,
        'the job was submitted now by the database’s clock, before the replica joined the cluster',
      );
    } finally {
      await stopReplica(replica);
    }
  });
});

test('records made on a replica an hour behind are listed after older ones made on time', { skip }, async () => {
  const onTime = await startReplica(schema.url);
  try {
    const key = await onTime.services.apiKeys.create({ name: 'lister' });
    const auth = { authorization: `Bearer ${key.token}` };
    const make = async (replica: typeof onTime, url: string, payload: object) => {
      const made = await replica.app.inject({ method: 'POST', url, headers: auth, payload });
      assert.equal(made.statusCode, 201, made.body);
      return made.json<{ id: string }>().id;
    };
    const template = { image: 'acme/worker:1' };
    const olderEndpoint = await make(onTime, '/v2/serverless', queueEndpointBody('older'));
    const olderTemplate = await make(onTime, '/v2/templates', { ...template, name: 'older' });
    const [newerEndpoint, newerTemplate] = await withClockOff(-HOUR, async () => {
      const behind = await startReplica(schema.url);
      try {
        return [
          await make(behind, '/v2/serverless', queueEndpointBody('newer')),
          await make(behind, '/v2/templates', { ...template, name: 'newer' }),
        ];
      } finally {
        await stopReplica(behind);
      }
    });
    /** The order `url`'s list shows the two records in. */
    const listedOrder = async (url: string, field: string, ids: string[]) => {
      const listed = (await onTime.app.inject({ method: 'GET', url, headers: auth })).json<Record<string, { id: string }[]>>();
      return listed[field]!.map((record) => record.id).filter((id) => ids.includes(id));
    };
    const endpoints = [olderEndpoint, newerEndpoint];
    assert.deepEqual(await listedOrder('/v2/serverless', 'endpoints', endpoints), endpoints, 'the older endpoint is listed first');
    const templates = [olderTemplate, newerTemplate];
    assert.deepEqual(await listedOrder('/v2/templates', 'templates', templates), templates, 'the older template is listed first');
  } finally {
    await stopReplica(onTime);
  }
});

test('a leader an hour behind starts its workers and meters them by the database’s clock', { skip }, async () => {
  await withClockOff(-HOUR, async () => {
    const replica = await startReplica(schema.url, { workerProvider: 'process', scaleIntervalMs: '100', meteringIntervalMs: '200' });
    try {
      const key = await replica.services.apiKeys.create({ name: 'operator' });
      const auth = { authorization: `Bearer ${key.token}` };
      const body = queueEndpointBody('metered', {
        workers: { min: 1, max: 1 },
        entrypoint: [process.execPath],
        cmd: ['--import', 'tsx', 'examples/echo-worker.ts'],
      });
      const created = await replica.app.inject({ method: 'POST', url: '/v2/serverless', headers: auth, payload: body });
      assert.equal(created.statusCode, 201, created.body);
      const endpointId = created.json<{ id: string }>().id;
      const worker = await eventually(async () => {
        const listed = await replica.app.inject({ method: 'GET', url: `/v2/serverless/${endpointId}/workers`, headers: auth });
        return listed.json<{ workers: { startedAt: string | null }[] }>().workers.find((w) => w.startedAt !== null);
      }, 20_000);
      assert.ok(Math.abs(Date.parse(worker.startedAt!) - (await databaseNow())) < 20_000, 'the worker started now by the database’s clock');
      const metered = await eventually(async () => {
        const { rows } = await pool.query<{ from_ms: string }>('SELECT from_ms FROM usage_intervals WHERE owner_id = $1', [endpointId]);
        return rows[0];
      }, 10_000);
      assert.ok(
        Math.abs(Number(metered.from_ms) - (await databaseNow())) < 20_000,
        'its usage is recorded from now by the database’s clock',
      );
    } finally {
      await stopReplica(replica);
    }
  });
});

test('`gantry keys` on a machine an hour behind sets and reads expiry by the database’s clock', { skip }, async () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, ['--import', './test/support/clock-off.mjs', ...CLI, 'keys', ...args, '--database', schema.url], {
      encoding: 'utf8',
      env: { ...process.env, GANTRY_TEST_CLOCK_OFF_MS: String(-HOUR) },
    });
  const keys = (args: string[]) => {
    const ran = run(args);
    assert.equal(ran.status, 0, ran.stderr);
    return ran.stdout;
  };
  const idOf = (token: string) => token.trim().split('_')[1]!;
  const lasting = idOf(keys(['create', '--name', 'ninety-minutes', '--expires-in', '90m']));
  // Half an hour ago by the database's clock, half an hour ahead by this machine's.
  const halfAnHourAgo = new Date((await databaseNow()) - 30 * 60_000).toISOString();
  const refused = run(['create', '--name', 'ended', '--expires-at', halfAnHourAgo]);
  assert.equal(refused.status, 2, 'a key the server would refuse at once is not made');
  assert.match(refused.stderr, /which has passed/);
  const ended = idOf(keys(['create', '--name', 'ended', '--expires-in', '1d']));
  await pool.query('UPDATE api_keys SET expires_at = $1 WHERE id = $2', [halfAnHourAgo, ended]);
  const listed = JSON.parse(keys(['list', '--json'])) as { id: string; expiresAt: string; status: string }[];
  const expiresAt = Date.parse(listed.find((k) => k.id === lasting)!.expiresAt);
  const wanted = (await databaseNow()) + 90 * 60_000;
  assert.ok(
    Math.abs(expiresAt - wanted) < 60_000,
    `--expires-in 90m ends 90 minutes from the database's now, not 30: ${(expiresAt - wanted) / 60_000} min off`,
  );
  assert.equal(
    listed.find((k) => k.id === ended)!.status,
    'expired',
    'a key that ended half an hour ago is listed as expired, as the server judges it',
  );
});
