// Two Gantry processes on one PostgreSQL whose machines disagree by an hour, at the same time: the
// one behind takes the submits and the worker's calls, the one on time leads and sweeps leases.
// Both keep the database's clock (decision 47), so the leader finds the running job's lease live
// and the job runs once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { callApi, runCli, serve, startEchoWorker, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { settles } from './support/live.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (replicas with clocks apart)`);
const skip = NO_POSTGRES ?? false;

const HOUR = 3_600_000;
/** A process started with this environment runs as on a machine whose clock is an hour behind. */
const AN_HOUR_BEHIND = {
  NODE_OPTIONS: `--import ${fileURLToPath(new URL('./support/clock-off.mjs', import.meta.url))}`,
  GANTRY_TEST_CLOCK_OFF_MS: String(-HOUR),
};

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-replica-clocks-'));
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let pool: pg.Pool;
let adminKey: string;
let onTime: ServeProcess;
let behind: ServeProcess;
const workers: ChildProcess[] = [];

const replicaArgs = () => [
  '--database',
  schema.url,
  '--data-dir',
  dataDir,
  '--worker-provider',
  'none',
  '--job-lease-ms',
  '60000',
  '--sweep-interval-ms',
  '100',
  '--leader-lease-ms',
  '1000',
];

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  pool = new pg.Pool({ connectionString: schema.url, max: 2 });
  adminKey = runCli(['keys', 'create', '--database', schema.url]).trim();
  onTime = await serve(replicaArgs());
  await settles(async () => {
    const { rows } = await pool.query<{ holder: string }>(`SELECT holder FROM leases WHERE name = 'leader'`);
    assert.ok(rows[0]?.holder, 'the replica on time leads');
  }, 10_000);
  behind = await serve(replicaArgs(), AN_HOUR_BEHIND);
});

after(async () => {
  if (skip) return;
  for (const child of workers) child.kill('SIGKILL');
  await Promise.all([onTime, behind].filter(Boolean).map((replica) => stop(replica.child, 'SIGKILL')));
  await pool.end();
  await schema.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a job leased through the replica an hour behind is left running by the leader on time, and runs once', { skip }, async () => {
  const created = await callApi(onTime.url, adminKey, 'POST', '/v2/serverless', {
    name: 'clocks',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(created.status, 201, created.text);
  const endpointId = created.json.id as string;
  const env = JSON.parse(
    runCli([
      'worker-env',
      endpointId,
      '--database',
      schema.url,
      '--worker-api-url',
      behind.url,
      '--worker-id',
      'behind-worker',
      '--format',
      'json',
    ]),
  ) as Record<string, string>;
  workers.push(startEchoWorker({ ...env, ...AN_HOUR_BEHIND }));

  const submitted = await callApi(behind.url, adminKey, 'POST', `/v2/${endpointId}/run`, { input: { sleepMs: 1500, echo: 'once' } });
  assert.equal(submitted.status, 200, submitted.text);
  const jobId = submitted.json.id as string;
  const finished = await callApi(onTime.url, adminKey, 'GET', `/v2/${endpointId}/status-sync/${jobId}?wait=20000`);
  assert.equal(finished.json?.status, 'COMPLETED', finished.text);
  assert.equal(finished.json.output, 'once');

  const { rows } = await pool.query<{ lease_losses: number; retries: number; submitted_at: string; now: string }>(
    `SELECT lease_losses, retries, submitted_at, (extract(epoch from clock_timestamp()) * 1000)::bigint AS now FROM jobs WHERE id = $1`,
    [jobId],
  );
  assert.deepEqual(
    [rows[0]!.lease_losses, rows[0]!.retries],
    [0, 0],
    'the leader never found its lease lapsed: the job was not sent back to the queue and ran once',
  );
  assert.ok(Number(rows[0]!.now) - Number(rows[0]!.submitted_at) < 30_000, 'it was submitted by the database’s clock, not an hour before');
  assert.match(behind.output(), /clock is off the database’s/, 'the replica behind warns that its machine’s clock wants fixing');
  assert.doesNotMatch(onTime.output(), /clock is off/);
});
