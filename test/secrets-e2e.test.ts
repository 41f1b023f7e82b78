// A secret end to end: a real worker process started by Gantry gets the value in its env, while
// the endpoint, its worker list and every server log line show only the reference. A secret that
// disappears makes the next start fail with a reason that names it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import Database from 'better-sqlite3';
import pg from 'pg';
import { eventually, sleep, startLive, type Live } from './support/live.js';
import { databaseFile } from '../src/store/store-location.js';

const VALUE = 'hf_e2eSecretValue_8c1d';
const DIGEST_WORKER = { entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'test/fixtures/workers/env-digest.ts'] };

let g: Live;
let logText = '';

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  g = await startLive(
    { workerProvider: 'process', scaleIntervalMs: '100', workerPingIntervalMs: '200', crashBackoffMs: '200', workerStopGraceMs: '2000' },
    {},
    // Debug, so request lines and everything else the server could say are captured.
    { logger: pino({ level: 'debug' }, sink) },
  );
});
after(() => g.close());

const createEndpoint = async (env: Record<string, string>) => {
  const res = await g.call('POST', '/v2/serverless', {
    name: 'secret-user',
    type: 'QUEUE',
    image: 'local/digest',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    workers: { min: 0, max: 1, idleTimeout: 5 },
    env,
    ...DIGEST_WORKER,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string };
};

const runsync = async (endpointId: string, input: unknown) => {
  const res = await fetch(`${g.url}/v2/${endpointId}/runsync?wait=30000`, {
    method: 'POST',
    headers: { authorization: g.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return (await res.json()) as { status: string; output: unknown };
};

/** Removes a secret behind the API's back, as a delete that won a race with an endpoint write would. */
async function dropSecretRow(name: string): Promise<void> {
  const url = g.services.config.databaseUrl;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('DELETE FROM secrets WHERE name = $1', [name]).finally(() => client.end());
    return;
  }
  // The server runs in this process: a write that waited for its lock synchronously would hold
  // the event loop, so the server's open group could never commit and free it. Wait between tries.
  const db = new Database(databaseFile(g.services.config), { timeout: 0 });
  const deadline = Date.now() + 5000;
  try {
    for (;;) {
      try {
        db.prepare('DELETE FROM secrets WHERE name = ?').run(name);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
        await sleep(5);
      }
    }
  } finally {
    db.close();
  }
}

test('the worker gets the value; the API and the logs show only the reference', async () => {
  assert.equal((await g.call('POST', '/v2/secrets', { name: 'hf_token', value: VALUE })).statusCode, 201);
  const reference = '{{ RUNPOD_SECRET_hf_token }}';
  const endpoint = await createEndpoint({ HF_TOKEN: reference });

  const result = await runsync(endpoint.id, { variable: 'HF_TOKEN' });
  assert.equal(result.status, 'COMPLETED', JSON.stringify(result));
  assert.deepEqual(result.output, { sha256: createHash('sha256').update(VALUE).digest('hex'), length: VALUE.length });

  const shown = await g.call('GET', `/v2/serverless/${endpoint.id}`);
  assert.equal(shown.json().env.HF_TOKEN, reference);
  const workers = await g.call('GET', `/v2/serverless/${endpoint.id}/workers`);
  assert.equal(workers.json().workers.length, 1, 'the worker is listed');
  assert.ok(logText.includes('worker started'), 'the logs were captured');
  for (const [where, text] of [
    ['endpoint', shown.body],
    ['workers', workers.body],
    ['logs', logText],
  ] as const) {
    assert.ok(!text.includes(VALUE), `the value appears in the ${where}`);
  }
});

test('a secret gone since the endpoint was written: the start fails with a crash-loop reason naming it', async () => {
  assert.equal((await g.call('POST', '/v2/secrets', { name: 'db_pass', value: VALUE })).statusCode, 201);
  const endpoint = await createEndpoint({ DB_PASS: '{{RUNPOD_SECRET_db_pass}}', TOKEN: '{{ RUNPOD_SECRET_hf_token }}' });
  await dropSecretRow('db_pass');
  await g.call('PATCH', `/v2/serverless/${endpoint.id}`, { workers: { min: 1 } });
  const view = await eventually(async () => {
    const v = (await g.call('GET', `/v2/serverless/${endpoint.id}/workers`)).json();
    return v.crashLoop && v;
  }, 15_000);
  assert.equal(view.crashLoop.lastReason, "the worker could not start: secret 'db_pass' referenced in the env does not exist (any more)");
  assert.ok(!JSON.stringify(view).includes(VALUE));
  assert.ok(!logText.includes(VALUE), 'nor in the logs');
  await g.call('DELETE', `/v2/serverless/${endpoint.id}`);
});
