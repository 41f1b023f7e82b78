// A run-batch counts against the account's rate limits as the /run requests it replaces: one per
// job, all of them or none, so batching saves requests but cannot raise an account's quota.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem } from './support/harness.js';
import { startLive, type Live } from './support/live.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { cli } from './support/processes.js';
import { clearOfWindowEnd } from './support/rate-windows.js';

const HOUR_QUOTA = 12;
let h: Live;
before(async () => {
  // The hour window, so that a minute boundary during the test does not reset the count; a file
  // started in an hour's last 90 s waits for the next, so that no count resets under it and the
  // CLI, which sits out a window that resets within a minute, meets a full one.
  await clearOfWindowEnd(3600, 90);
  h = await startLive({ rateLimitMinute: '1000', rateLimitHour: String(HOUR_QUOTA) });
});
after(() => h.close());

/**
 * A key of a new account, with an endpoint of its own; creating the endpoint counts one request.
 * The queue is read with an exempt key of the same account, so reads count nothing.
 */
async function accountWithEndpoint(name: string, rateLimitExempt = false) {
  const key = await h.newKey({ accountName: name, rateLimitExempt });
  const reader = await h.newKey({ accountName: name, rateLimitExempt: true });
  const created = await h.call('POST', '/v2/serverless', queueEndpointBody(name), key);
  assert.equal(created.statusCode, 201, created.body);
  const endpointId = created.json().id as string;
  const batch = (count: number) =>
    h.call('POST', `/v2/${endpointId}/run-batch`, { jobs: Array.from({ length: count }, (_, n) => ({ input: { n } })) }, key);
  const queued = async () => (await h.call('GET', `/v2/${endpointId}/health`, undefined, reader)).json().jobs.inQueue as number;
  return { key, endpointId, batch, queued };
}

const hourLeft = (headers: Record<string, unknown>) => Number(/"hour";r=(\d+)/.exec(String(headers.ratelimit))?.[1]);

test('each job of a batch counts as a request; a batch with no room is refused whole and counts only itself', async () => {
  const { batch, queued } = await accountWithEndpoint('batching');
  const first = await batch(4);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(hourLeft(first.headers), HOUR_QUOTA - 1 - 4, 'the endpoint create and four jobs are counted');

  const tooMany = await batch(8);
  assert.equal(tooMany.statusCode, 429, tooMany.body);
  assert.match(
    problem(tooMany).detail,
    /^rate limit exceeded: 12 requests per hour \(this request counts as 8; the hour window had room for 7\); the hour window resets in \d+ s$/,
  );
  assert.match(String(tooMany.headers['retry-after']), /^\d+$/);
  assert.equal(await queued(), 4, 'nothing of the refused batch is queued');

  // The refused batch counted as the one request it is, so six are left.
  const fits = await batch(6);
  assert.equal(fits.statusCode, 200, fits.body);
  assert.equal(hourLeft(fits.headers), 0);
  assert.equal(await queued(), 10);
});

test('a batch larger than a whole window is 422, never worth retrying', async () => {
  const { batch, queued } = await accountWithEndpoint('oversized');
  const res = await batch(HOUR_QUOTA + 1);
  assert.equal(res.statusCode, 422, res.body);
  assert.equal(problem(res).detail, 'this request counts as 13 requests, more than the hour quota of 12: send fewer at a time');
  assert.equal(await queued(), 0);
});

test('an invalid batch counts as one request, and an exempt key batches without limit', async () => {
  const { batch } = await accountWithEndpoint('invalid');
  const invalid = await batch(0);
  assert.equal(invalid.statusCode, 400, invalid.body);
  assert.equal(hourLeft(invalid.headers), HOUR_QUOTA - 2);

  const exempt = await accountWithEndpoint('exempt', true);
  for (let i = 0; i < 3; i++) {
    const res = await exempt.batch(HOUR_QUOTA);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers.ratelimit, undefined);
  }
  assert.equal(await exempt.queued(), 3 * HOUR_QUOTA);
});

test('a batch sent again under its Idempotency-Key queues nothing and counts only as itself', async () => {
  const { key, endpointId, queued } = await accountWithEndpoint('replays');
  const jobs = Array.from({ length: 8 }, (_, n) => ({ input: { n } }));
  const send = async (idempotencyKey: string, body = { jobs }) => {
    const headers = { authorization: key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
    const res = await fetch(`${h.url}/v2/${endpointId}/run-batch`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json(), headers: res.headers };
  };
  const first = await send('import.1');
  assert.equal(first.status, 200);
  assert.equal(hourLeft(Object.fromEntries(first.headers)), HOUR_QUOTA - 1 - 8);

  // Three requests are left, fewer than the batch's eight jobs: its answer is still given again.
  for (const left of [2, 1]) {
    const again = await send('import.1');
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.json, first.json);
    assert.equal(hourLeft(Object.fromEntries(again.headers)), left);
  }
  assert.equal(await queued(), 8);

  // A new key is a new batch: its two jobs do not fit in the one request left.
  const fresh = await send('import.2', { jobs: jobs.slice(0, 2) });
  assert.equal(fresh.status, 429, JSON.stringify(fresh.json));
  assert.equal(await queued(), 8);
});

test('two copies of a new keyed batch sent at once queue it once and count it once', async () => {
  const { key, endpointId, queued } = await accountWithEndpoint('copies');
  const body = JSON.stringify({ jobs: Array.from({ length: 6 }, (_, n) => ({ input: { n } })) });
  const send = async () => {
    const headers = { authorization: key, 'content-type': 'application/json', 'idempotency-key': 'copies.1' };
    const res = await fetch(`${h.url}/v2/${endpointId}/run-batch`, { method: 'POST', headers, body });
    return { status: res.status, json: (await res.json()) as unknown, headers: Object.fromEntries(res.headers) };
  };
  // Counted as two batches, the copies would need 1 + 6 + 6 requests of the 12: the second would be
  // refused with 429 although its jobs were queued by the first.
  const answers = await Promise.all([send(), send()]);
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200],
    JSON.stringify(answers.map((a) => a.json)),
  );
  assert.deepEqual(answers[0]!.json, answers[1]!.json);
  assert.deepEqual(answers.map((a) => a.headers['idempotent-replayed']).sort(), ['true', undefined]);
  assert.equal(Math.min(...answers.map((a) => hourLeft(a.headers))), HOUR_QUOTA - 1 - 6 - 1, 'the copy counts as one request');
  assert.equal(await queued(), 6);
});

test('gantry jobs run-batch sends --batch-size jobs a request; a run stopped by an hour window says how to resume it', async () => {
  const { key, endpointId, queued } = await accountWithEndpoint('cli');
  const lines = `${Array.from({ length: 14 }, (_, n) => JSON.stringify({ n })).join('\n')}\n`;
  const args = ['jobs', 'run-batch', endpointId, '-', '--batch-size', '5', '--idempotency-key', 'import'];
  const run = await cli(args, { GANTRY_URL: h.url, GANTRY_API_KEY: key }, lines);
  assert.equal(run.status, 1, run.stderr);
  // 11 requests were left after the endpoint's create: two batches of 5, then the third refused.
  assert.match(run.stderr, /rate limit exceeded: 12 requests per hour \(this request counts as 4; the hour window had room for 1\)/);
  assert.match(run.stderr, /nothing from stdin line 11 on was queued; the 10 jobs before it are queued/);
  assert.match(run.stderr, /run the same command with --idempotency-key import within a day to queue the rest/);
  assert.match(run.stderr, /add --rate-limit-wait \d+ to that command to have it wait for the window/);
  assert.equal(run.stdout.trim().split('\n').length, 10);
  assert.equal(await queued(), 10);
  const badSize = await cli(
    ['jobs', 'run-batch', endpointId, '-', '--batch-size', '1001'],
    { GANTRY_URL: h.url, GANTRY_API_KEY: key },
    lines,
  );
  assert.equal(badSize.status, 2);
  assert.match(badSize.stderr, /--batch-size.*use a whole number from 1 to 1000/);
  const badWait = await cli(
    ['jobs', 'run-batch', endpointId, '-', '--rate-limit-wait', '86401'],
    { GANTRY_URL: h.url, GANTRY_API_KEY: key },
    lines,
  );
  assert.equal(badWait.status, 2);
  assert.match(badWait.stderr, /--rate-limit-wait.*use a whole number from 0 to 86400/);
});
