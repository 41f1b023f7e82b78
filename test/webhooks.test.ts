// Webhook delivery: retries, time-outs, and refusal of private targets, against a real receiver.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRefusedAddress, WebhookDispatcher } from '../src/services/webhooks.js';
import { eventually, sleep, startLive, type Live } from './support/live.js';

interface Hit { at: number; body: string; headers: IncomingMessage['headers'] }

/** A local receiver answering with the given statuses in turn ('hang' never answers). */
async function receiver(statuses: (number | 'hang')[]) {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      hits.push({ at: Date.now(), body, headers: req.headers });
      const status = statuses[Math.min(hits.length - 1, statuses.length - 1)]!;
      if (status !== 'hang') res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { hits, url: `http://127.0.0.1:${port}/hook`, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const warnings: string[] = [];
const log = { warn: (_obj: object, msg: string) => warnings.push(msg) };
const allowLoopback = (extra: object = {}) => new WebhookDispatcher({ allowedCidrs: ['127.0.0.0/8'], retryDelayMs: 60, timeoutMs: 300, log, ...extra });

describe('delivery', () => {
  test('a 2xx receiver gets the body once, as JSON', async () => {
    const r = await receiver([200]);
    const d = allowLoopback();
    d.deliver(r.url, '{"id":"j1","status":"COMPLETED"}');
    await eventually(async () => d.pending === 0);
    assert.equal(r.hits.length, 1);
    assert.equal(r.hits[0]!.body, '{"id":"j1","status":"COMPLETED"}');
    assert.equal(r.hits[0]!.headers['content-type'], 'application/json');
    assert.equal(r.hits[0]!.headers['user-agent'], 'Gantry-Webhook/1');
    await r.close();
  });

  test('failures are retried twice, spaced by the retry delay, then given up', async () => {
    const flaky = await receiver([500, 502, 200]);
    const d = allowLoopback();
    d.deliver(flaky.url, '{}');
    await eventually(async () => d.pending === 0);
    assert.equal(flaky.hits.length, 3);
    assert.ok(flaky.hits[1]!.at - flaky.hits[0]!.at >= 55 && flaky.hits[2]!.at - flaky.hits[1]!.at >= 55);
    const broken = await receiver([503]);
    d.deliver(broken.url, '{}');
    await eventually(async () => d.pending === 0);
    await sleep(200);
    assert.equal(broken.hits.length, 3, 'three attempts in all, then no more');
    await flaky.close();
    await broken.close();
  });

  test('a receiver that never answers is abandoned after the time-out and retried', async () => {
    const r = await receiver(['hang', 'hang', 200]);
    const d = allowLoopback();
    d.deliver(r.url, '{}');
    await eventually(async () => d.pending === 0, 5000);
    assert.equal(r.hits.length, 3);
    await r.close();
  });

  test('loopback is refused by default, even through a name, and allowed when configured', async () => {
    const r = await receiver([200]);
    const strict = new WebhookDispatcher({ retryDelayMs: 60, log });
    strict.deliver(r.url, '{}');
    strict.deliver(`http://localhost:${r.port}/hook`, '{}');
    await eventually(async () => strict.pending === 0);
    await sleep(100);
    assert.equal(r.hits.length, 0);
    assert.ok(warnings.includes('webhook target refused'));
    allowLoopback().deliver(`http://localhost:${r.port}/hook`, '{}');
    await eventually(async () => r.hits.length === 1);
    await r.close();
  });

  test('close stops pending retries', async () => {
    const r = await receiver([500]);
    const d = allowLoopback({ retryDelayMs: 150 });
    d.deliver(r.url, '{}');
    await eventually(async () => r.hits.length === 1);
    await d.close();
    await sleep(400);
    assert.equal(r.hits.length, 1);
    await r.close();
  });
});

describe('targets', () => {
  test('checkTarget refuses what can never be a public webhook', () => {
    const d = new WebhookDispatcher();
    for (const url of ['ftp://example.com/x', '/relative', 'http://user:pass@example.com/', 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/', 'http://localhost:8080/']) {
      assert.equal(typeof d.checkTarget(url), 'string', url);
    }
    assert.equal(d.checkTarget('https://example.com/hook'), undefined);
    assert.equal(new WebhookDispatcher({ allowedCidrs: ['127.0.0.0/8'] }).checkTarget('http://127.0.0.1:9/x'), undefined);
  });

  test('address classification', () => {
    const refused = ['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '::'];
    for (const address of refused) assert.equal(isRefusedAddress(address, []), true, address);
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) assert.equal(isRefusedAddress(address, []), false, address);
    assert.equal(isRefusedAddress('10.1.2.3', ['10.0.0.0/8']), false);
  });
});

describe('through the queue', () => {
  let g: Live;
  before(async () => {
    g = await startLive();
  });
  after(() => g.close());

  test('a finished job POSTs its status body to its webhook', async () => {
    const r = await receiver([200]);
    const run = await g.queue('POST', '/run', { input: { x: 1 }, webhook: r.url });
    assert.equal(run.status, 200);
    const taken = await g.worker('GET', '/job-take/hooker');
    await g.worker('POST', `/job-done/hooker/${taken.json.id}?isStream=false`, '{"output": {"ok": true}}');
    await eventually(async () => r.hits.length === 1);
    const body = JSON.parse(r.hits[0]!.body);
    assert.deepEqual([body.id, body.status, body.output], [run.json.id, 'COMPLETED', { ok: true }]);
    const v2 = await g.queue('POST', '/run', { input: {}, webhookV2: r.url });
    await g.queue('POST', `/cancel/${v2.json.id}`);
    await eventually(async () => r.hits.length === 2);
    assert.equal(JSON.parse(r.hits[1]!.body).status, 'CANCELLED', 'webhookV2 is honoured on every terminal status');
    await r.close();
  });

  test('a private webhook target is refused at submit with a 400', async () => {
    const res = await g.queue('POST', '/run', { input: {}, webhook: 'http://10.0.0.7/hook' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.errors, ['webhook: must not point at a private, loopback or link-local address (10.0.0.7)']);
  });
});
