// Pods need the Docker provider: with the process provider (or none) every pod route answers a
// 501 problem naming the flag, and clusters answer 501 whatever the provider.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem, startHarness, type Harness } from './support/harness.js';
import { assertReferenceShape } from './support/reference-schemas.js';

let h: Harness;
before(async () => {
  h = await startHarness({ workerProvider: 'process' });
});
after(async () => h.close());

test('the process provider answers pods with 501 naming --worker-provider docker', async () => {
  for (const [method, url, body] of [
    ['GET', '/v2/pods'],
    ['POST', '/v2/pods', { name: 'p', image: 'img', cpu: { id: 'cpu3c', vcpuCount: 2 } }],
    ['GET', '/v2/pods/abc'],
    ['POST', '/v2/pods/abc/action', { action: 'stop' }],
    ['DELETE', '/v2/pods/abc'],
  ] as const) {
    const res = await h.call(method, url, body);
    assert.equal(res.statusCode, 501, `${method} ${url}: ${res.body}`);
    const answer = problem(res);
    assert.equal(answer.title, 'Not Implemented');
    assert.match(answer.detail, /--worker-provider docker/);
    assert.match(answer.detail, /--worker-provider process/);
    assertReferenceShape('ErrorResponse', answer);
  }
});

test('clusters are not offered: 501 problem', async () => {
  for (const [method, url] of [
    ['GET', '/v2/clusters'],
    ['POST', '/v2/clusters'],
    ['GET', '/v2/clusters/c1'],
    ['GET', '/v2/clusters/c1/pods'],
  ] as const) {
    const res = await h.call(method, url, method === 'POST' ? {} : undefined);
    assert.equal(res.statusCode, 501, `${method} ${url}`);
    assert.match(problem(res).detail, /clusters are not offered/);
  }
});
