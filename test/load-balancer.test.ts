// Load-balancing endpoints through Gantry's balancer to the example HTTP worker as real
// processes: routing by host and by path, authentication, the health view, streamed uploads,
// server-sent events and WebSockets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { WebSocket } from 'undici';
import { eventually, startLive, type Live } from './support/live.js';
import { lbFetch, open, type LbCall } from './support/lb-client.js';

const HTTP_WORKER = { entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/http-worker.ts'] };
let g: Live;
let lbId: string;

before(async () => {
  g = await startLive({ workerProvider: 'process', scaleIntervalMs: '100', lbHealthIntervalMs: '100', workerStopGraceMs: '2000' });
  const created = await g.call('POST', '/v2/serverless', {
    name: 'http',
    type: 'LOAD_BALANCER',
    image: 'local/http',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 8 },
    workers: { min: 1, max: 1 },
    ...HTTP_WORKER,
  });
  assert.equal(created.statusCode, 201, created.body);
  lbId = created.json().id;
  await eventually(async () => (await workersOf(lbId)).summary.idle === 1, 20_000);
});
after(() => g.close());

const workersOf = async (id: string) => (await g.call('GET', `/v2/serverless/${id}/workers`)).json();
const bearer = () => ({ authorization: `Bearer ${g.adminKey}` });
const viaPath = (path: string, extra: Partial<LbCall> = {}): LbCall => ({
  url: g.url,
  path: `/v2/lb/${lbId}${path}`,
  headers: bearer(),
  ...extra,
});

test("requests on the endpoint's own host reach a worker with path, query, method, headers and body unchanged", async () => {
  const endpoint = (await g.call('GET', `/v2/serverless/${lbId}`)).json();
  const base = new URL(endpoint.requestUrls.base);
  assert.equal(base.hostname, `${lbId}.lb.localhost`);
  assert.equal(endpoint.requestUrls.health, `${endpoint.requestUrls.base}/ping`);
  const answer = await lbFetch({
    url: g.url,
    host: base.host,
    method: 'PUT',
    path: '/echo?a=1&b=two',
    headers: { ...bearer(), 'x-custom': 'kept', 'content-type': 'text/plain', 'x-forwarded-for': '10.0.0.9' },
    body: 'the body',
  });
  assert.equal(answer.status, 200, answer.text);
  const seen = answer.json;
  assert.deepEqual([seen.method, seen.path, seen.query, seen.body], ['PUT', '/echo', '?a=1&b=two', 'the body']);
  assert.equal(seen.headers['x-custom'], 'kept');
  assert.equal(seen.headers.authorization, undefined, 'the API key is not passed on');
  assert.equal(seen.headers['x-forwarded-for'], '10.0.0.9, 127.0.0.1');
  assert.equal(seen.headers['x-forwarded-host'], base.host);
  assert.equal(seen.headers['x-forwarded-proto'], 'http');
  assert.ok(answer.headers.ratelimit, 'rate-limit headers as on every authenticated answer');
});

test('the same endpoint answers under /v2/lb/{id} on the main address', async () => {
  const answer = await lbFetch(viaPath('/echo?x=1', { method: 'POST', body: 'hi' }));
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual([answer.json.path, answer.json.query, answer.json.body], ['/echo', '?x=1', 'hi']);
  const root = await lbFetch(viaPath(''));
  assert.equal(root.status, 404, "the worker's own 404 for its root");
  assert.equal(root.json.error, 'no route GET /');
});

test('<id>.localhost reaches the endpoint too, whatever the URL pattern, as the README shows', async () => {
  const answer = await lbFetch({ url: g.url, host: `${lbId}.localhost:8080`, path: '/echo?via=localhost', headers: bearer() });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual([answer.json.path, answer.json.query], ['/echo', '?via=localhost']);
  const unknown = await lbFetch({ url: g.url, host: 'nosuchendpoint.localhost', path: '/echo', headers: bearer() });
  assert.equal(unknown.status, 404, unknown.text);
});

test("the health URL answers the balancer's view of the endpoint's workers", async () => {
  const answer = await lbFetch(viaPath('/ping'));
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.json, {
    workers: { ready: 1, idle: 1, running: 0, initializing: 0, throttled: 0, unhealthy: 0 },
    requests: { inFlight: 0, held: 0 },
  });
});

test('callers need an API key that may use the endpoint, and the endpoint must be a load balancer', async () => {
  const problemOf = async (call: LbCall) => {
    const answer = await lbFetch(call);
    assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
    return answer.json;
  };
  assert.equal((await problemOf(viaPath('/echo', { headers: {} }))).status, 401);
  assert.equal((await problemOf(viaPath('/echo', { headers: { authorization: 'Bearer gantry_nope' } }))).status, 401);
  const otherEndpointKey = await g.newKey({ permission: 'endpoints', endpointIds: [g.endpointId] });
  const forbidden = await problemOf(viaPath('/echo', { headers: { authorization: `Bearer ${otherEndpointKey}` } }));
  assert.deepEqual([forbidden.status, forbidden.detail], [403, `this API key may not use endpoint ${lbId}`]);
  const ownKey = await g.newKey({ permission: 'endpoints', endpointIds: [lbId] });
  assert.equal(
    (await lbFetch(viaPath('/whoami', { headers: { authorization: ownKey } }))).status,
    200,
    'a bare key works as on the queue API',
  );
  const readKey = await g.newKey({ permission: 'read' });
  assert.equal((await problemOf(viaPath('/echo', { method: 'POST', headers: { authorization: `Bearer ${readKey}` } }))).status, 403);
  const other = await g.newKey({ accountName: 'someone-else' });
  assert.equal(
    (await problemOf(viaPath('/echo', { headers: { authorization: `Bearer ${other}` } }))).status,
    404,
    "another account's endpoint is unknown",
  );
  const queuePaths = await problemOf({ url: g.url, path: `/v2/lb/${g.endpointId}/echo`, headers: bearer() });
  assert.equal(queuePaths.status, 400);
  assert.match(queuePaths.detail, /is a QUEUE endpoint/);
  const run = await g.call('POST', `/v2/${lbId}/run`, { input: {} });
  assert.equal(run.statusCode, 400);
  assert.match(run.json().detail, /LOAD_BALANCER endpoint; it has no job queue/);
});

test('a 200 MB upload streams through to the worker without the server holding it', async () => {
  // Large against what streaming costs (RSS grows by 30-55 MiB however big the body, buffers and
  // garbage not yet collected), so a server holding the body shows four times over.
  const size = 200 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 'gantry-');
  const expected = createHash('sha256');
  let produced = 0;
  let lastChunkAt = 0;
  const body = new Readable({
    read() {
      if (produced >= size) {
        lastChunkAt = Date.now();
        return void this.push(null);
      }
      produced += chunk.length;
      expected.update(chunk);
      this.push(chunk);
    },
  });
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const answer = await lbFetch(
    viaPath('/upload', { method: 'POST', body, headers: { ...bearer(), 'content-type': 'application/octet-stream' } }),
  );
  clearInterval(sampler);
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual([answer.json.bytes, answer.json.sha256], [size, expected.digest('hex')]);
  assert.ok(answer.json.firstByteAt < lastChunkAt, 'the worker was reading before the client had sent everything');
  // Client and server share this process; holding the body would add at least its 200 MB.
  assert.ok(rssPeak - rssBefore < size / 2, `RSS grew by ${((rssPeak - rssBefore) / 1048576).toFixed(1)} MiB`);
});

test('server-sent events pass through one by one, as the worker sends them', async () => {
  const res = await open(viaPath('/sse?n=4&everyMs=300'));
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/event-stream');
  const arrivals: { i: number; at: number; receivedAt: number }[] = [];
  let buffer = '';
  for await (const chunk of res) {
    buffer += String(chunk);
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = JSON.parse(buffer.slice(0, end).replace(/^data: /, '')) as { i: number; at: number };
      arrivals.push({ ...event, receivedAt: Date.now() });
      buffer = buffer.slice(end + 2);
    }
  }
  assert.deepEqual(
    arrivals.map((a) => a.i),
    [0, 1, 2, 3],
  );
  assert.ok(arrivals[0]!.receivedAt < arrivals[3]!.at, 'the first event arrived before the worker sent the last');
});

test('a WebSocket upgrade passes through and echoes', async () => {
  const ws = new WebSocket(`${g.url.replace('http', 'ws')}/v2/lb/${lbId}/ws`, { headers: bearer() });
  const messages: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => {
      ws.send('hello');
      ws.send('x'.repeat(70_000));
    };
    ws.onmessage = (event) => {
      messages.push(String(event.data));
      if (messages.length === 2) resolve();
    };
    ws.onerror = (event) => reject(new Error(`websocket error: ${String((event as { message?: string }).message)}`));
  });
  assert.deepEqual([messages[0], messages[1]!.length], ['hello', 70_000]);
  const closed = new Promise((resolve) => (ws.onclose = resolve));
  ws.close();
  await closed;
  const upgradeHeaders = {
    connection: 'Upgrade',
    upgrade: 'websocket',
    'sec-websocket-version': '13',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  };
  const refused = await lbFetch(viaPath('/ws', { headers: upgradeHeaders }));
  assert.equal(refused.status, 401, 'an upgrade without a key is refused');
  assert.equal(refused.json.status, 401);
});

test('/metrics counts load-balanced requests by status and shows those in flight', async () => {
  const scrape = async () => (await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${g.adminKey}` } })).text();
  const value = (text: string, series: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${series} `))
        ?.slice(series.length + 1) ?? 0,
    );
  const ok = `gantry_lb_requests_total{endpoint="${lbId}",code="200"}`;
  const notFound = `gantry_lb_requests_total{endpoint="${lbId}",code="404"}`;
  const durations = `gantry_lb_request_seconds_count{endpoint="${lbId}"}`;
  const inFlight = `gantry_lb_requests_active{endpoint="${lbId}",phase="in_flight"}`;
  const before = await scrape();
  for (const path of ['/echo', '/whoami', '/no-such-path']) assert.notEqual((await lbFetch(viaPath(path))).status, 0);
  const unauthorised = await lbFetch(viaPath('/echo', { headers: {} }));
  assert.equal(unauthorised.status, 401);

  const slow = lbFetch(viaPath('/sleep?ms=1500'));
  await eventually(async () => value(await scrape(), inFlight) === 1, 1000);
  assert.equal((await slow).status, 200);
  const after = await scrape();
  assert.equal(value(after, ok) - value(before, ok), 3, 'echo, whoami and sleep');
  assert.equal(value(after, notFound) - value(before, notFound), 1, "the worker's own 404");
  assert.equal(value(after, durations) - value(before, durations), 4, 'unauthenticated requests are not counted');
  assert.equal(value(after, inFlight), 0);
});
