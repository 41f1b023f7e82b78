// Every error is application/problem+json: bad JSON, content types, sizes, routes and methods.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { problem, startHarness, type Harness } from './support/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const post = (payload: string | Buffer, contentType: string) =>
  h.app.inject({
    method: 'POST',
    url: '/v2/serverless',
    headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': contentType },
    payload,
  });

test('malformed JSON is a 400 naming the problem', async () => {
  const res = await post('{"name": ', 'application/json');
  assert.equal(res.statusCode, 400);
  const p = problem(res);
  assert.equal(p.title, 'Bad Request');
  assert.match(p.detail, /^the request body is not valid JSON/);
  assert.equal(p.errors?.length, 1);
});

test('an empty JSON body is no body: a create that needs one fails validation saying so', async () => {
  const res = await post('', 'application/json');
  assert.equal(res.statusCode, 422);
  assert.ok(
    problem(res).errors?.some((e) => e.startsWith('body')),
    JSON.stringify(problem(res).errors),
  );
});

test('a body that is not an object fails validation', async () => {
  const res = await post('[1,2]', 'application/json');
  assert.equal(res.statusCode, 422);
  assert.deepEqual(problem(res).errors, ['body: must be object']);
});

test('a content type other than JSON is 415, text/plain holding JSON too', async () => {
  for (const [payload, type] of [
    ['name=x', 'application/x-www-form-urlencoded'],
    ['{"name": "x"}', 'text/plain'],
  ]) {
    const res = await post(payload!, type!);
    assert.equal(res.statusCode, 415, type);
    assert.equal(problem(res).title, 'Unsupported Media Type');
    assert.match(problem(res).detail, /send application\/json/);
  }
});

test('a compressed body is 415 naming its encoding; a __proto__ key is refused as such, not as bad JSON', async () => {
  const gzipped = await h.app.inject({
    method: 'POST',
    url: '/v2/serverless',
    headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    payload: gzipSync('{"name": "x"}'),
  });
  assert.equal(gzipped.statusCode, 415);
  assert.match(problem(gzipped).detail, /content encoding 'gzip' is not supported/);
  const poisoned = await post('{"name": "x", "env": {"__proto__": {"A": "1"}}}', 'application/json');
  assert.equal(poisoned.statusCode, 400);
  assert.equal(problem(poisoned).detail, 'the request body has a __proto__ or constructor.prototype key, which is refused');
});

test('a body over the management limit is 413', async () => {
  const res = await post(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }), 'application/json');
  assert.equal(res.statusCode, 413);
  assert.match(problem(res).detail, /exceeds the 1048576 byte limit/);
});

test('an unknown route is 404 and a wrong method 405 with Allow', async () => {
  const missing = await h.call('GET', '/v2/nowhere');
  assert.equal(missing.statusCode, 404);
  assert.equal(problem(missing).detail, 'no route GET /v2/nowhere');
  const wrong = await h.call('PUT', '/v2/serverless');
  assert.equal(wrong.statusCode, 405);
  assert.equal(wrong.headers.allow, 'GET, POST');
  assert.equal(problem(wrong).title, 'Method Not Allowed');
});
