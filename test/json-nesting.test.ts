// JSON bodies nested past the documented limit answer 400 problem+json wherever JSON is accepted,
// instead of overflowing the stack somewhere between parsing and storing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';
import { startHarness } from './support/harness.js';
import { JSON_NESTING_LIMIT } from '../src/http/json-depth.js';

/** `depth` levels of alternating objects and arrays, as text: JSON.stringify itself overflows on 5,000. */
const nested = (depth: number): string => {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? '{"a":' : '[';
    close = (i % 2 === 0 ? '}' : ']') + close;
  }
  return `${open}1${close}`;
};

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

/** POST /run with a body given as text. */
async function runText(body: string): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${g.url}/v2/${g.endpointId}/run`, {
    method: 'POST',
    headers: { authorization: g.adminKey, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

async function takeOne(): Promise<string> {
  const run = await g.queue('POST', '/run', { input: { n: 1 } });
  assert.equal(run.status, 200);
  const taken = await g.worker('GET', '/job-take/w1?gpu=none');
  assert.equal(taken.status, 200);
  return taken.json.id as string;
}

describe('JSON nesting limit', () => {
  test('/run with input nested 5,000 levels is a 400 problem', async () => {
    const res = await runText(`{"input":{"deep":${nested(5000)}}}`);
    assert.equal(res.status, 400, JSON.stringify(res.json));
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.match(res.json.detail, /nest/);
  });

  test('input exactly at the limit is accepted; one level more is refused', async () => {
    // The body itself is one level ({input: ...}), input another.
    const ok = await runText(`{"input":{"deep":${nested(JSON_NESTING_LIMIT - 2)}}}`);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const over = await runText(`{"input":{"deep":${nested(JSON_NESTING_LIMIT - 1)}}}`);
    assert.equal(over.status, 400, JSON.stringify(over.json));
  });

  test('brackets inside strings do not count', async () => {
    const res = await g.queue('POST', '/run', { input: { text: '[{'.repeat(10_000) + '\\"[' } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });

  test('the management API refuses deep bodies too', async () => {
    const res = await g.app.inject({
      method: 'POST',
      url: '/v2/templates',
      headers: { authorization: `Bearer ${g.adminKey}`, 'content-type': 'application/json' },
      payload: `{"name":"t","image":"a/b:1","env":${nested(5000)}}`,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  });

  test('a JSON args string nested 5,000 levels is refused as a bad value, not a crash', async () => {
    const res = await g.call('POST', '/v2/templates', { name: 'deep-args', image: 'a/b:1', args: `{"entrypoint":${nested(5000)}}` });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  });

  for (const route of ['job-done', 'job-stream']) {
    test(`a worker's ${route} nested 5,000 levels is a 400 problem`, async () => {
      const jobId = await takeOne();
      const res = await g.worker('POST', `/${route}/w1/${jobId}?gpu=none&isStream=false`, `{"output":${nested(5000)}}`);
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.match(res.json.detail, /nest/);
      if (route === 'job-done') {
        const status = await g.queue('GET', `/status/${jobId}`);
        assert.equal(status.json.status, 'FAILED');
        assert.match(status.json.error, /nest/);
      }
    });
  }
});

test('a number too large to represent is refused with a problem, never stored as Infinity', async () => {
  const h = await startHarness();
  try {
    const payload =
      '{"name":"x","type":"QUEUE","image":"a/b:1","cpu":[{"id":"cpu3c","vcpuCount":2}],"scaling":{"type":"QUEUE_DELAY","queueDelay":1e400}}';
    const res = await h.app.inject({
      method: 'POST',
      url: '/v2/serverless',
      headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal((await h.call('GET', '/v2/serverless')).statusCode, 200, 'the list still answers');
  } finally {
    await h.close();
  }
});
