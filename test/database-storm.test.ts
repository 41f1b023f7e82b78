// Two replicas on one PostgreSQL while the database's connections are cut again and again, and
// while the database refuses connections altogether: no replica exits, every answer is a
// success or a 503 with Retry-After (never a 500), and service returns by itself right after.
// The test runs on a database of its own, so cutting connections disturbs no other test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, runCli, serve, stop, type ApiAnswer, type ServeProcess } from './support/processes.js';
import { NO_POSTGRES } from './support/test-store.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { settles, sleep } from './support/live.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (database storm)`);
const skip = NO_POSTGRES ?? false;

const STORM_MS = 3000;
const TERMINATE_EVERY_MS = 150;
/** Calls per caller during the storm, whatever the time: the loops end on whichever comes first. */
const MAX_CALLS_PER_CALLER = 400;
const CALLERS_PER_REPLICA = 2;

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-storm-'));
let db: ThrowawayDatabase;
let key: string;
let endpointId: string;
const replicas: ServeProcess[] = [];

const call = (replica: ServeProcess, method: string, path: string, body?: unknown) => callApi(replica.url, key, method, path, body);

before(async () => {
  if (skip) return;
  db = await createThrowawayDatabase('gantry_storm');
  key = runCli(['keys', 'create', '--database', db.url]).trim();
  const args = [
    '--database',
    db.url,
    '--data-dir',
    dataDir,
    '--worker-provider',
    'none',
    '--leader-lease-ms',
    '1000',
    '--database-pool-size',
    '4',
  ];
  replicas.push(...(await Promise.all([serve(args), serve(args)])));
  const created = await call(replicas[0]!, 'POST', '/v2/serverless', {
    name: 'storm',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  endpointId = created.json.id;
});

after(async () => {
  for (const replica of replicas) await stop(replica.child);
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const exited = (replica: ServeProcess) => replica.child.exitCode !== null || replica.child.signalCode !== null;

function assertAllAlive(): void {
  for (const [i, replica] of replicas.entries()) {
    assert.ok(
      !exited(replica),
      `replica ${i} exited (${replica.child.exitCode ?? replica.child.signalCode}):\n${replica.output().slice(-3000)}`,
    );
  }
}

/** A success, or a 503 that tells the client when to retry. */
function acceptable(answer: ApiAnswer): boolean {
  return (answer.status >= 200 && answer.status < 300) || (answer.status === 503 && answer.headers.get('retry-after') !== null);
}

/** Submits jobs and reads their status until the deadline; every answer, or the error of a call that got none. */
async function callUntil(replica: ServeProcess, deadline: number): Promise<(ApiAnswer | Error)[]> {
  const answers: (ApiAnswer | Error)[] = [];
  for (let i = 0; i < MAX_CALLS_PER_CALLER && Date.now() < deadline; i++) {
    try {
      const run = await call(replica, 'POST', `/v2/${endpointId}/run`, { input: { i } });
      answers.push(run);
      if (run.status === 200) answers.push(await call(replica, 'GET', `/v2/${endpointId}/status/${run.json.id}`));
    } catch (error) {
      answers.push(error as Error);
    }
  }
  return answers;
}

/** Ends the database's connections every TERMINATE_EVERY_MS until the deadline; how many it ended. */
async function terminateUntil(deadline: number): Promise<number> {
  let terminated = 0;
  for (let round = 0; round < Math.ceil(STORM_MS / TERMINATE_EVERY_MS) + 1 && Date.now() < deadline; round++) {
    terminated += await db.terminateBackends();
    await sleep(TERMINATE_EVERY_MS);
  }
  return terminated;
}

/** A job submitted and its status read on this replica. */
async function serves(replica: ServeProcess): Promise<void> {
  const run = await call(replica, 'POST', `/v2/${endpointId}/run`, { input: { after: 'storm' } });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  const status = await call(replica, 'GET', `/v2/${endpointId}/status/${run.json.id}`);
  assert.equal(status.status, 200, JSON.stringify(status.json));
}

test('connections cut every 150 ms under load: no replica exits, no 500, and both serve right after', { skip }, async () => {
  const deadline = Date.now() + STORM_MS;
  const callers = replicas.flatMap((replica) => Array.from({ length: CALLERS_PER_REPLICA }, () => callUntil(replica, deadline)));
  const [terminated, ...answered] = await Promise.all([terminateUntil(deadline), ...callers]);
  const answers = answered.flat();

  assertAllAlive();
  assert.ok(terminated > 0, 'the storm ended some connections');
  const wrong = answers.filter((answer) => answer instanceof Error || !acceptable(answer));
  assert.deepEqual(
    wrong.map((answer) => (answer instanceof Error ? answer.message : `${answer.status} ${answer.text.slice(0, 200)}`)),
    [],
    `${wrong.length} of ${answers.length} answers were neither a success nor a 503 with Retry-After`,
  );

  for (const replica of replicas) await settles(() => serves(replica), 1000, 50);
  assertAllAlive();
});

test(
  'a database that refuses connections answers 503 with Retry-After, and service returns once it accepts them again',
  { skip },
  async () => {
    await db.allowConnections(false);
    try {
      await db.terminateBackends();
      for (const replica of replicas) {
        for (const [method, path, body] of [
          ['GET', '/v2/serverless'],
          ['POST', `/v2/${endpointId}/run`, { input: {} }],
        ] as const) {
          const answer = await call(replica, method, path, body);
          assert.equal(answer.status, 503, `${method} ${path}: ${answer.text}`);
          assert.equal(answer.headers.get('retry-after'), '2');
        }
        // The log line reaches this process through a pipe, possibly after the answer.
        await settles(async () => assert.match(replica.output(), /"code":"55000"/, 'the log names the condition'), 2000, 50);
      }
    } finally {
      await db.allowConnections(true);
    }
    for (const replica of replicas) await settles(() => serves(replica), 2000, 50);
    assertAllAlive();
  },
);
