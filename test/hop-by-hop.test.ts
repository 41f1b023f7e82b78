// The balancer strips every header the Connection header names, as well as the standard
// hop-by-hop ones, in both directions, over real sockets to a tiny worker process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { eventually, startLive, type Live } from './support/live.js';
import { lbFetch } from './support/lb-client.js';

let g: Live;
let lbId = '';
before(async () => {
  g = await startLive({ workerProvider: 'process', scaleIntervalMs: '100', lbHealthIntervalMs: '100', workerStopGraceMs: '1000' });
  const created = await g.call('POST', '/v2/serverless', {
    name: 'hop',
    type: 'LOAD_BALANCER',
    image: 'local/hop',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 8 },
    workers: { min: 1, max: 1 },
    entrypoint: [process.execPath],
    cmd: ['test/fixtures/workers/hop-by-hop.mjs'],
  });
  assert.equal(created.statusCode, 201, created.body);
  lbId = created.json().id;
  await eventually(async () => (await g.call('GET', `/v2/serverless/${lbId}/workers`)).json().summary.idle === 1, 20_000);
});
after(() => g.close());

test('request headers named by Connection do not reach the worker', async () => {
  const answer = await lbFetch({
    url: g.url,
    path: `/v2/lb/${lbId}/echo`,
    headers: {
      authorization: `Bearer ${g.adminKey}`,
      connection: 'keep-alive, X-Client-Secret, x-other',
      'x-client-secret': 'hop',
      'x-other': 'hop',
      'x-client-public': 'end-to-end',
      te: 'trailers',
      'keep-alive': 'timeout=5',
    },
  });
  assert.equal(answer.status, 200, answer.text);
  const seen = answer.json.headers as Record<string, string>;
  assert.equal(seen['x-client-public'], 'end-to-end');
  for (const name of ['x-client-secret', 'x-other', 'te', 'keep-alive']) assert.equal(seen[name], undefined, name);
});

test('response headers named by Connection do not reach the client', async () => {
  const answer = await lbFetch({ url: g.url, path: `/v2/lb/${lbId}/echo`, headers: { authorization: `Bearer ${g.adminKey}` } });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.headers['x-worker-public'], 'end-to-end');
  assert.equal(answer.headers['x-worker-secret'], undefined);
});

test('an upgrade passes Connection and Upgrade but not the headers they name, both ways', async () => {
  const target = new URL(g.url);
  const { headers, seen } = await new Promise<{ headers: Record<string, unknown>; seen: Record<string, string> }>((resolve, reject) => {
    const req = request({
      host: target.hostname,
      port: target.port,
      path: `/v2/lb/${lbId}/ws`,
      headers: { authorization: `Bearer ${g.adminKey}`, connection: 'Upgrade, X-Client-Secret', upgrade: 'echo', 'x-client-secret': 'hop' },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ headers: res.headers, seen: JSON.parse(String(res.headers['x-seen'])) as Record<string, string> });
    });
    req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
  assert.equal(seen.upgrade, 'echo');
  assert.equal(seen['x-client-secret'], undefined, 'the worker did not get the header the client named');
  assert.equal(headers['x-worker-secret'], undefined, 'the client did not get the header the worker named');
  assert.equal(String(headers.upgrade), 'echo');
});
