// Three Gantry processes sharing one PostgreSQL, as a deployment behind a load balancer runs them:
// work submitted on one replica is served through another and awaited on a third, and killing a
// replica (the leader) under load loses no accepted job.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { callApi, runCli, serve, startEchoWorker, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { settles, sleep } from './support/live.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { clearOfWindowEnd } from './support/rate-windows.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (replicas)`);
const skip = NO_POSTGRES ?? false;

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-replicas-'));
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let adminKey: string;
const replicas: ServeProcess[] = [];
const workers: ChildProcess[] = [];
let endpointId: string;

const cli = runCli;

const replicaArgs = () => [
  '--database',
  schema.url,
  '--data-dir',
  dataDir,
  '--worker-provider',
  'none',
  '--take-wait-ms',
  '3000',
  '--job-lease-ms',
  '1500',
  '--sweep-interval-ms',
  '100',
  '--leader-lease-ms',
  '1000',
  // Longer than every wait below: an answer in time proves a notification woke the waiter.
  '--event-fallback-ms',
  '10000',
  '--worker-ping-interval-ms',
  '300',
];

const call = (base: string, method: string, path: string, body?: unknown, key = adminKey) => callApi(base, key, method, path, body);

/** What the replicas printed last and what their database connections are doing, for a failure message. */
async function diagnostics(): Promise<string> {
  const activity =
    await query(`SELECT application_name, state, wait_event_type, wait_event, left(query, 120) AS query, now() - query_start AS running
    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY query_start`);
  return `${replicas.map((r) => r.output().slice(-1500)).join('\n---\n')}\n--- pg_stat_activity:\n${activity.map((row) => JSON.stringify(row)).join('\n')}`;
}

/** The worker environment `gantry worker-env` prints, pointed at one replica. */
function workerEnv(replicaUrl: string, workerId: string): Record<string, string> {
  const out = cli([
    'worker-env',
    endpointId,
    '--database',
    schema.url,
    '--worker-api-url',
    replicaUrl,
    '--worker-id',
    workerId,
    '--format',
    'json',
  ]);
  return JSON.parse(out) as Record<string, string>;
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const leaseHolder = async () => (await query<{ holder: string }>(`SELECT holder FROM leases WHERE name = 'leader'`))[0]?.holder;

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  adminKey = cli(['keys', 'create', '--database', schema.url]).trim();
  // A starts alone and becomes the leader; B and C join it together.
  replicas.push(await serve(replicaArgs()));
  await settles(async () => assert.ok(await leaseHolder()), 10_000);
  replicas.push(...(await Promise.all([serve(replicaArgs()), serve(replicaArgs())])));
  const created = await call(replicas[0]!.url, 'POST', '/v2/serverless', {
    name: 'replicated',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  endpointId = created.json.id;
});

after(async () => {
  for (const child of workers) child.kill('SIGKILL');
  await Promise.all(replicas.map((r) => stop(r.child, 'SIGKILL')));
  await schema?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a job submitted on A is taken by a worker on B while C waits for it, and C answers at once', { skip }, async () => {
  const [a, b, c] = replicas.map((r) => r.url) as [string, string, string];
  const env = workerEnv(b, 'protocol-worker');
  const auth = { authorization: env.RUNPOD_AI_API_KEY! };
  const takeUrl = env.RUNPOD_WEBHOOK_GET_JOB!.replace('$ID', 'protocol-worker');
  assert.ok(takeUrl.startsWith(b));

  const taking = fetch(takeUrl, { headers: auth });
  await sleep(300);
  const submitted = await call(a, 'POST', `/v2/${endpointId}/run`, { input: { prompt: 'across replicas' } });
  assert.equal(submitted.status, 200);
  const jobId = submitted.json.id as string;

  const take = await taking;
  assert.equal(take.status, 200, 'the take on B is woken by the submit on A (its long-poll is shorter than the fallback re-check)');
  const job = (await take.json()) as { id: string; input: unknown };
  assert.deepEqual([job.id, job.input], [jobId, { prompt: 'across replicas' }]);

  const waiting = call(c, 'GET', `/v2/${endpointId}/status-sync/${jobId}?wait=8000`);
  await sleep(300);
  const doneUrl = env.RUNPOD_WEBHOOK_POST_OUTPUT!.replace('$RUNPOD_POD_ID', 'protocol-worker').replace('$ID', jobId);
  const done = await fetch(doneUrl, { method: 'POST', headers: auth, body: JSON.stringify({ output: { answer: 42 } }) });
  assert.equal(done.status, 200);
  const resultPosted = Date.now();
  const answered = await waiting;
  const lagMs = Date.now() - resultPosted;
  assert.equal(answered.json.status, 'COMPLETED');
  assert.deepEqual(answered.json.output, { answer: 42 });
  // The fallback re-check is 10 s away: only a notification from B explains an answer within a second.
  assert.ok(lagMs < 1000, `C answered ${lagMs} ms after the result reached B`);
  console.log(`# C answered ${lagMs} ms after the result was posted to B`);
});

test('a stream read waiting on C and a job-stop long-poll on B wake at once for chunks and cancels made elsewhere', { skip }, async () => {
  const [a, b, c] = replicas.map((r) => r.url) as [string, string, string];
  const env = workerEnv(b, 'streaming-worker');
  const auth = { authorization: env.RUNPOD_AI_API_KEY! };
  const takeUrl = env.RUNPOD_WEBHOOK_GET_JOB!.replace('$ID', 'streaming-worker');
  const submitted = await call(a, 'POST', `/v2/${endpointId}/run`, { input: { prompt: 'stream me' } });
  const jobId = submitted.json.id as string;
  const take = await fetch(takeUrl, { headers: auth });
  assert.equal(((await take.json()) as { id: string }).id, jobId);

  // Both waits are shorter than the 10 s fallback re-check, so only a notification can answer them early.
  const reading = call(c, 'GET', `/v2/${endpointId}/stream/${jobId}`);
  const stopUrl = takeUrl.replace('/job-take/', '/job-stop/');
  const stopping = fetch(stopUrl, { headers: auth });
  await sleep(300);

  const streamUrl = env.RUNPOD_WEBHOOK_POST_STREAM!.replace('$RUNPOD_POD_ID', 'streaming-worker').replace('$ID', jobId);
  const posted = await fetch(streamUrl, { method: 'POST', headers: auth, body: JSON.stringify({ output: 'chunk-1' }) });
  assert.equal(posted.status, 200);
  const chunkPostedAt = Date.now();
  const read = await reading;
  const streamLag = Date.now() - chunkPostedAt;
  assert.deepEqual(read.json.stream, [{ output: 'chunk-1' }]);
  assert.ok(streamLag < 1000, `the stream read on C answered ${streamLag} ms after the chunk reached B`);

  const cancelled = await call(a, 'POST', `/v2/${endpointId}/cancel/${jobId}`);
  assert.equal(cancelled.json.status, 'CANCELLED');
  const cancelledAt = Date.now();
  const stop = await stopping;
  const stopLag = Date.now() - cancelledAt;
  assert.equal(stop.status, 200);
  assert.match(await stop.text(), new RegExp(jobId));
  assert.ok(stopLag < 1000, `the job-stop long-poll on B answered ${stopLag} ms after the cancel on A`);
  console.log(`# stream read on C woke ${streamLag} ms after the chunk reached B; job-stop on B ${stopLag} ms after the cancel on A`);
});

test('a key revoked by another process is refused at once by every replica that had just accepted it', { skip }, async () => {
  const token = cli(['keys', 'create', '--database', schema.url, '--data-dir', dataDir]).trim();
  const id = /^gantry_([a-z0-9]{12})_/.exec(token)![1]!;
  const health = (url: string) => call(url, 'GET', `/v2/${endpointId}/health`, undefined, token);
  // Each replica reads the key once here, and would keep its copy for a while.
  for (const replica of replicas) assert.equal((await health(replica.url)).status, 200);
  const store = await PostgresStore.open({ url: schema.url, max: 1 });
  try {
    assert.equal(await store.revokeApiKey(id, new Date().toISOString()), true);
  } finally {
    await store.close();
  }
  const revoked = Date.now();
  for (const replica of replicas) {
    await settles(async () => assert.equal((await health(replica.url)).status, 401), 3000, 10);
  }
  const lagMs = Date.now() - revoked;
  // A copy is kept for a second at most: a refusal everywhere well within it is the notification's doing.
  assert.ok(lagMs < 800, `the replicas refused the key ${lagMs} ms after it was revoked`);
  console.log(`# every replica refused the revoked key within ${lagMs} ms`);
});

test('a key revoked over REST on one replica is refused by it on the next request, and by the others at once', { skip }, async () => {
  const [a, ...others] = replicas;
  const created = await call(a!.url, 'POST', '/v2/account/keys', { name: 'rest-revoked' });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const token = created.json.key as string;
  const health = (url: string) => call(url, 'GET', `/v2/${endpointId}/health`, undefined, token);
  for (const replica of replicas) assert.equal((await health(replica.url)).status, 200);
  const deleted = await call(others[0]!.url, 'DELETE', `/v2/account/keys/${created.json.id}`);
  assert.equal(deleted.status, 200);
  const revoked = Date.now();
  assert.equal((await health(others[0]!.url)).status, 401, 'the replica that revoked it refuses it on the next request');
  for (const replica of [a!, ...others.slice(1)]) {
    await settles(async () => assert.equal((await health(replica.url)).status, 401), 3000, 10);
  }
  const lagMs = Date.now() - revoked;
  assert.ok(lagMs < 800, `the other replicas refused the key ${lagMs} ms after it was revoked`);
});

test('a runsync on C is served by a real worker connected to B', { skip }, async () => {
  const [, b, c] = replicas.map((r) => r.url) as [string, string, string];
  workers.push(startEchoWorker({ ...workerEnv(b, 'echo-b'), RUNPOD_PING_INTERVAL: '300', WORKER_CONCURRENCY: '4' }));
  const result = await call(c, 'POST', `/v2/${endpointId}/runsync?wait=30000`, { input: { echo: 'from C via B' } });
  assert.equal(result.json.status, 'COMPLETED', JSON.stringify(result.json));
  assert.equal(result.json.output, 'from C via B');
  // Every replica lists the worker, whichever one it talks to.
  for (const replica of replicas) {
    await settles(async () => {
      const listed = await call(replica.url, 'GET', `/v2/serverless/${endpointId}/workers`);
      assert.ok(JSON.stringify(listed.json).includes('echo-b'), `${replica.url}: ${JSON.stringify(listed.json)}`);
    }, 5000);
  }
});

test('rate-limit windows are shared: a key cannot multiply its quota across replicas', { skip }, async () => {
  // Three requests spread over three replicas draw down one and the same minute window.
  const key = cli(['keys', 'create', '--database', schema.url, '--account', 'quota-check']).trim();
  await clearOfWindowEnd(60, 5);
  const remaining: number[] = [];
  for (const replica of replicas) {
    const res = await fetch(`${replica.url}/v2/serverless`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    remaining.push(Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]));
  }
  assert.deepEqual(
    remaining.map((r) => remaining[0]! - r),
    [0, 1, 2],
    `remaining per request: ${remaining.join(', ')}`,
  );
});

test('gantry doctor sees the schema, notifications and all three replicas with their leader', { skip }, async () => {
  const out = cli(['doctor', '--database', schema.url]);
  assert.match(out, /ok +schema +up to date/);
  assert.match(out, /ok +notifications +LISTEN\/NOTIFY delivers/);
  assert.match(out, /ok +replicas +3 running: .*; leader replica-/);
});

test('replicas started together on an empty database print one admin key between them, and it works on both', { skip }, async () => {
  const empty = await createPostgresSchema();
  const started = await Promise.allSettled(
    [0, 1].map(() => serve(['--database', empty.url, '--data-dir', dataDir, '--worker-provider', 'none'])),
  );
  try {
    const both = started.map((s) => (s.status === 'fulfilled' ? s.value : assert.fail(`a replica did not start: ${String(s.reason)}`)));
    const printed = both.map((replica) => /^\s+(gantry_\S+)$/m.exec(replica.output())?.[1]).filter((key) => key !== undefined);
    assert.equal(printed.length, 1, `exactly one banner shows an admin key:\n${both.map((r) => r.output()).join('\n---\n')}`);
    for (const replica of both) {
      const res = await fetch(`${replica.url}/v2/serverless`, { headers: { authorization: `Bearer ${printed[0]}` } });
      assert.equal(res.status, 200);
    }
  } finally {
    for (const s of started) if (s.status === 'fulfilled') await stop(s.value.child);
    await empty.drop();
  }
});

test('killing the leader under load loses no accepted job', { skip, timeout: 120_000 }, async () => {
  const [a, b, c] = replicas.map((r) => r.url) as [string, string, string];
  // A second worker talks to A, the leader, and dies with it (as its host would); its jobs must be recovered.
  const workerOfA = startEchoWorker({ ...workerEnv(a, 'echo-a'), RUNPOD_PING_INTERVAL: '300', WORKER_CONCURRENCY: '4' });
  workers.push(workerOfA);
  // A's worker is a process of its own and may take seconds to start on a busy machine: the load
  // below is over in a few, and B's worker would take all of it. It starts once A's worker has
  // taken a job (probes submitted to A until then; they complete like any other).
  await settles(
    async () => {
      const taken = await query(`SELECT 1 FROM jobs WHERE worker_id = 'echo-a' LIMIT 1`);
      if (taken.length === 0) await call(a, 'POST', `/v2/${endpointId}/run`, { input: { echo: 'probe' } });
      assert.ok(taken.length > 0, "A's worker has taken a job");
    },
    30_000,
    200,
  );
  const accepted = new Map<string, number>();
  const targets = [a, b, c];
  let killed = false;
  const submit = async (n: number) => {
    const refusals: string[] = [];
    for (const target of targets) {
      if (killed && target === a) continue;
      try {
        const res = await call(target, 'POST', `/v2/${endpointId}/run`, { input: { echo: n, sleepMs: 150 } });
        if (res.status === 200) return accepted.set(res.json.id, n);
        refusals.push(`${target}: ${res.status} ${JSON.stringify(res.json)}`);
      } catch (error) {
        // The replica is gone: a client tries the next one, as a load balancer would.
        refusals.push(`${target}: ${(error as Error).message}`);
      }
    }
    const logs = replicas.map((r) => r.output().slice(-2000)).join('\n---\n');
    throw new Error(`job ${n} was refused by every replica: ${refusals.join('; ')}\n${logs}`);
  };
  let n = 0;
  const load = (async () => {
    while (n < 120) {
      await Promise.all([submit(n++), submit(n++), submit(n++)]);
      await sleep(30);
    }
  })();
  // Kill A while its worker holds jobs, so they can only finish if another replica requeues them.
  // The worker is frozen first: a job it held when looked at could otherwise finish before the kill.
  await settles(
    async () => {
      assert.ok(accepted.size >= 30);
      workerOfA.kill('SIGSTOP');
      await sleep(200); // results it had already sent reach A
      const held = await query(`SELECT id FROM jobs WHERE worker_id = 'echo-a' AND status = 'IN_PROGRESS'`);
      if (held.length === 0) workerOfA.kill('SIGCONT');
      assert.ok(held.length > 0);
    },
    20_000,
    10,
  );
  const leaderBefore = await leaseHolder();
  await stop(replicas[0]!.child, 'SIGKILL');
  workerOfA.kill('SIGKILL');
  killed = true;
  await load;

  const survivors = [b, c];
  await settles(async () => {
    const statuses = await Promise.all(
      [...accepted.keys()].map((id, i) => call(survivors[i % 2]!, 'GET', `/v2/${endpointId}/status/${id}`)),
    );
    const unfinished = statuses.filter((s) => s.json?.status !== 'COMPLETED');
    assert.equal(
      unfinished.length,
      0,
      `${unfinished.length} of ${accepted.size} not completed yet, e.g. ${JSON.stringify(unfinished[0]?.json)}`,
    );
    for (const [i, [, input]] of [...accepted].entries()) assert.equal(statuses[i]!.json.output, input);
  }, 60_000).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await diagnostics()}`);
  });
  const health = await call(b, 'GET', `/v2/${endpointId}/health`);
  assert.ok(health.json.jobs.retried > 0, "the jobs A's worker held were requeued and completed elsewhere");
  const leaderAfter = await leaseHolder();
  assert.ok(leaderAfter && leaderAfter !== leaderBefore, 'another replica took over the leadership');
  console.log(`# ${accepted.size} accepted jobs, all completed after the leader was killed; ${health.json.jobs.retried} were requeued`);
});
