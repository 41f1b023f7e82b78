// The worker SDK's result batcher against a real HTTP server that records each request: results
// wait for handlers still running (up to the window), and leave at once when none is.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResultBatcher } from '../src/worker/result-batcher.js';
import { Transport } from '../src/worker/transport.js';
import { sleep } from './support/live.js';

/** A window no test waits out: a result that waited for it would time the test out. */
const LONG_WINDOW_MS = 600_000;

/** Records each batch request's job ids; closed when the test `t` ends. */
async function batchServer(t: TestContext) {
  const batches: string[][] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const ids = (JSON.parse(text) as { results: { id: string }[] }).results.map((r) => r.id);
      batches.push(ids);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: ids.map((id) => ({ id, outcome: 'accepted' })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { batches, url };
}

const result = (jobId: string) => ({ jobId, isStream: false, body: { output: jobId } });

/** A batcher posting to the server, with handlers running while `running()` says so. */
function batcherOn(url: string, running: () => boolean): ResultBatcher {
  return new ResultBatcher(new Transport('wk'), `${url}/v2/ep/job-done-batch/w1?x=1`, () => `${url}/unused`, running, LONG_WINDOW_MS);
}

test(
  'while handlers run a result waits for theirs; once none runs the batch leaves without waiting out the window',
  { timeout: 10_000 },
  async (t) => {
    const server = await batchServer(t);
    let running = true;
    const batcher = batcherOn(server.url, () => running);
    const first = batcher.post(result('a'));
    await sleep(100);
    assert.deepEqual(server.batches, [], 'held while another handler may still finish');
    running = false;
    const outcomes = await Promise.all([first, batcher.post(result('b')), batcher.post(result('c'))]);
    assert.deepEqual(outcomes, [undefined, undefined, undefined], 'each result accepted');
    assert.deepEqual(server.batches, [['a', 'b', 'c']], 'one request for the three, sent when the last handler ended');
  },
);

test(
  'with no handler running, results posted in one turn share a request and the next turn starts another',
  { timeout: 10_000 },
  async (t) => {
    const server = await batchServer(t);
    const batcher = batcherOn(server.url, () => false);
    await Promise.all([batcher.post(result('a')), batcher.post(result('b'))]);
    await Promise.all([batcher.post(result('c')), batcher.post(result('d'))]);
    assert.deepEqual(server.batches, [
      ['a', 'b'],
      ['c', 'd'],
    ]);
  },
);
