// How the CLI sends a keyed request again, against a real socket: after no answer or a 5xx, a few
// times; after a 429, once the Retry-After has passed when it is at most a minute, and not at all
// when it is longer (an hour's or a day's window stops the run instead); and `gantry jobs run-batch
// --rate-limit-wait`, run as a process, waiting as long as it is told.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, ApiError, Unanswered, whileReachable } from '../src/cli/remote/api-client.js';
import { cli } from './support/processes.js';

/** Each request takes the next answer: [status, Retry-After]; every request's key is kept. */
let answers: [number, string?][] = [];
const keysSeen: string[] = [];
let server: Server;
let client: ApiClient;
let url: string;

before(async () => {
  server = createServer((req, res) => {
    keysSeen.push(String(req.headers['idempotency-key']));
    const [status, retryAfter] = answers.shift() ?? [200];
    const ok = req.url?.endsWith('/run-batch') ? { jobs: [{ id: 'job-1', status: 'IN_QUEUE' }] } : { id: 'job-1' };
    const body = status === 200 ? ok : { title: 'Too Many Requests', status, detail: 'rate limit exceeded' };
    res.writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new ApiClient({ url, urlSource: 'test', apiKey: 'k', apiKeySource: 'test' });
});
after(() => server.close());

test('a 429 of a minute window is waited out and the same request sent again, with its key', async () => {
  answers = [[429, '1'], [429, '1'], [200]];
  keysSeen.length = 0;
  const waits: number[] = [];
  const started = Date.now();
  const answer = await client.callWithKey<{ id: string }>('POST', '/run', {}, 'batch.1', { waiting: (s) => waits.push(s) });
  assert.deepEqual(answer, { id: 'job-1' });
  assert.deepEqual(waits, [1, 1]);
  assert.ok(Date.now() - started >= 2000, 'it waited the Retry-After each time');
  assert.deepEqual(keysSeen, ['batch.1', 'batch.1', 'batch.1']);
});

test('a 429 that would keep the run waiting longer than a minute stops it at once, saying when to retry', async () => {
  answers = [[429, '3600']];
  keysSeen.length = 0;
  await assert.rejects(client.callWithKey('POST', '/run', {}, 'batch.2', { waiting: () => assert.fail('no wait') }), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterSeconds, 3600);
    assert.match(error.message, /retry after 3600 s/);
    return true;
  });
  assert.equal(keysSeen.length, 1);
});

test("the longest wait is the caller's: none at all, or a window longer than a minute", async () => {
  answers = [[429, '1']];
  keysSeen.length = 0;
  const never = client.callWithKey('POST', '/run', {}, 'batch.4', { longestWaitSeconds: 0, waiting: () => assert.fail('no wait') });
  await assert.rejects(never, (error: unknown) => error instanceof ApiError && error.status === 429);
  assert.equal(keysSeen.length, 1);
  answers = [[429, '2'], [200]];
  const waits: number[] = [];
  const answer = await client.callWithKey('POST', '/run', {}, 'batch.5', { longestWaitSeconds: 2, waiting: (s) => waits.push(s) });
  assert.deepEqual(answer, { id: 'job-1' });
  assert.deepEqual(waits, [2]);
});

test('a 5xx is sent again up to the tries given; a 4xx is not', async () => {
  answers = [[503], [502], [200]];
  keysSeen.length = 0;
  assert.deepEqual(await client.callWithKey('POST', '/run', {}, 'batch.3', { pauseMs: 1 }), { id: 'job-1' });
  assert.equal(keysSeen.length, 3);
  answers = [[503], [503], [503], [200]];
  await assert.rejects(client.callWithKey('POST', '/run', {}, 'batch.4', { pauseMs: 1 }), /503/);
  answers = [[400], [200]];
  keysSeen.length = 0;
  await assert.rejects(client.callWithKey('POST', '/run', {}, 'batch.5', { pauseMs: 1 }), /400/);
  assert.equal(keysSeen.length, 1);
});

test('gantry jobs run-batch waits out a window as long as --rate-limit-wait allows, and no longer', async () => {
  const runBatch = (wait: string) =>
    cli(
      ['jobs', 'run-batch', 'ep1', '-', '--idempotency-key', 'import', '--rate-limit-wait', wait],
      { GANTRY_URL: url, GANTRY_API_KEY: 'k' },
      '{"n":1}\n',
    );
  answers = [[429, '2'], [200]];
  keysSeen.length = 0;
  const waited = await runBatch('2');
  assert.equal(waited.status, 0, waited.stderr);
  assert.match(waited.stderr, /rate limit: waiting 2 s for the window to reset, then sending line 1 on/);
  assert.equal(waited.stdout.trim(), 'job-1');
  assert.deepEqual(keysSeen, ['import.1', 'import.1']);

  answers = [[429, '2'], [200]];
  keysSeen.length = 0;
  const stopped = await runBatch('1');
  assert.equal(stopped.status, 1, stopped.stderr);
  assert.doesNotMatch(stopped.stderr, /waiting/);
  assert.match(stopped.stderr, /add --rate-limit-wait 2 to that command to have it wait for the window/);
  assert.deepEqual(keysSeen, ['import.1']);
});

test('a server that never answers is named after the answer timeout, not waited on', async () => {
  let asked = 0;
  const hung = createServer(() => void (asked += 1));
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  try {
    const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const impatient = new ApiClient({ url: hungUrl, urlSource: 'test', apiKey: 'k', apiKeySource: 'test' }, 300);
    await assert.rejects(impatient.call('GET', '/v2/serverless'), (error: Error) => {
      assert.ok(error instanceof Unanswered, String(error));
      assert.match(error.message, new RegExp(`Gantry at ${hungUrl} \\(test\\) did not answer within 0\\.3 s`));
      return true;
    });
    // Asking again would wait as long again: neither a keyed call nor a waiting verb does.
    asked = 0;
    await assert.rejects(
      whileReachable(() => impatient.callWithKey('POST', '/v2/x/runsync', {}, 'k1', { tries: 3 })),
      Unanswered,
    );
    assert.equal(asked, 1, 'given up after one wait, not sent again');
  } finally {
    hung.closeAllConnections();
    hung.close();
  }
});

test('a waiting verb keeps trying while the server restarts (502-504), and stops at an answer it cannot pass', async () => {
  answers = [[503], [502], [200]];
  const retried: string[] = [];
  assert.deepEqual(
    await whileReachable(
      () => client.call('GET', '/v2/x/status/job-1'),
      (why) => retried.push(why),
    ),
    { id: 'job-1' },
  );
  assert.equal(retried.length, 2);
  answers = [[404]];
  await assert.rejects(
    whileReachable(() => client.call('GET', '/v2/x/status/job-1')),
    (error: Error) => error instanceof ApiError,
  );
});
