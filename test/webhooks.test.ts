// Webhook delivery from the store: retries, time-outs, refusal of private targets, and
// deliveries that outlive the process that owed them, against a real receiver and a real store.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressPolicy, WebhookSender } from '../src/services/webhooks.js';
import { WebhookOutbox, type OutboxOptions } from '../src/services/webhook-outbox.js';
import { WebhookSecretService } from '../src/services/webhook-secrets.js';
import { Secrets } from '../src/services/secrets/secrets.js';
import type { NewJob } from '../src/store/job-store.js';
import { eventually, sleep, startLive, type Live } from './support/live.js';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import { silentLogger, type Logger } from '../src/domain/logger.js';

interface Hit {
  at: number;
  body: string;
  headers: IncomingMessage['headers'];
}

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
  return {
    hits,
    url: `http://127.0.0.1:${port}/hook`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const warnings: string[] = [];
const warningDetails: object[] = [];
const log: Logger = {
  ...silentLogger,
  warn: (obj: object, msg: string) => {
    warnings.push(msg);
    warningDetails.push(obj);
  },
};
const FAST: OutboxOptions = { retryDelayMs: 60, attempts: 3, pollMs: 20, claimMs: 2000 };

describe(`delivery [${TEST_STORE}]`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-webhooks-'));
  let t: TestStore;
  const outboxes: WebhookOutbox[] = [];
  let seq = 0;
  before(async () => {
    t = await openTestStore(dataDir);
  });
  after(async () => {
    for (const outbox of outboxes) await outbox.close();
    await t.store.close();
    await t.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const outbox = (
    sender = new WebhookSender({ allowedCidrs: ['127.0.0.0/8'], timeoutMs: 300 }),
    options: Partial<OutboxOptions> = {},
    store = t.store,
    secrets = new Secrets({ secretKey: undefined, dataDir, shared: false }),
  ) => {
    const created = new WebhookOutbox(store.jobs, sender, new WebhookSecretService(store, secrets), { ...FAST, ...options }, log);
    outboxes.push(created);
    created.start();
    return created;
  };

  /** A job with this webhook, taken and completed through the store as a worker would. */
  async function finishedJob(webhook: string, status: 'COMPLETED' | 'FAILED' = 'COMPLETED'): Promise<string> {
    const now = Date.now();
    const job: NewJob = {
      id: `hook-job-${++seq}`,
      endpointId: `ep-hooks-${seq}`,
      accountId: 'acct',
      input: '{}',
      webhook,
      s3Config: null,
      executionTimeoutMs: 60_000,
      lowPriority: false,
      retentionMs: 600_000,
      ttlMs: 3_600_000,
      submittedAt: now,
      expiresAt: now + 3_600_000,
    };
    await t.store.jobs.insert(job);
    await t.store.jobs.take(job.endpointId, 'w1', 1, now, now + 60_000);
    await t.store.jobs.complete(job.id, ['IN_PROGRESS'], { status, output: '{"ok":true}', error: null, completedAt: now });
    return job.id;
  }

  test("a finished job's receiver gets its status body once, as JSON", async () => {
    const r = await receiver([200]);
    const d = outbox();
    const id = await finishedJob(r.url);
    await eventually(async () => r.hits.length === 1);
    await sleep(150);
    assert.equal(r.hits.length, 1, 'once');
    const body = JSON.parse(r.hits[0]!.body);
    assert.deepEqual([body.id, body.status, body.output], [id, 'COMPLETED', { ok: true }]);
    assert.equal(r.hits[0]!.headers['content-type'], 'application/json');
    assert.equal(r.hits[0]!.headers['user-agent'], 'Gantry-Webhook/1');
    await d.close();
    await r.close();
  });

  test('without a secret key, deliveries go unsigned and the reason is logged once, not per delivery', async () => {
    const r = await receiver([200]);
    const keyless = new Secrets({ secretKey: undefined, dataDir, shared: true });
    const d = outbox(undefined, {}, t.store, keyless);
    const before = warnings.length;
    await finishedJob(r.url);
    await finishedJob(r.url);
    await eventually(async () => r.hits.length === 2);
    for (const hit of r.hits) {
      assert.match(String(hit.headers['webhook-id']), /^msg_hook-job-\d+$/);
      assert.equal(hit.headers['webhook-signature'], undefined);
    }
    assert.deepEqual(warnings.slice(before), ['webhooks are sent unsigned']);
    assert.match(JSON.stringify(warningDetails.at(-1)), /--secret-key/);
    await d.close();
    await r.close();
  });

  test("a retried job's outcome is another delivery, with its own webhook-id", async () => {
    const r = await receiver([200]);
    const d = outbox();
    const id = await finishedJob(r.url, 'FAILED');
    await eventually(async () => r.hits.length === 1);
    const now = Date.now();
    assert.ok(await t.store.jobs.requeue(id, ['FAILED'], now + 3_600_000));
    const [again] = await t.store.jobs.take(`ep-hooks-${seq}`, 'w2', 1, now, now + 60_000);
    assert.equal(again?.id, id);
    await t.store.jobs.complete(id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '{"ok":true}', error: null, completedAt: now });
    await eventually(async () => r.hits.length === 2);
    assert.deepEqual(
      r.hits.map((hit) => [hit.headers['webhook-id'], JSON.parse(hit.body).status]),
      [
        [`msg_${id}`, 'FAILED'],
        [`msg_${id}_1`, 'COMPLETED'],
      ],
    );
    await d.close();
    await r.close();
  });

  test('failures are retried twice, spaced by the retry delay, then given up', async () => {
    const flaky = await receiver([500, 502, 200]);
    const broken = await receiver([503]);
    const d = outbox();
    await finishedJob(flaky.url);
    await eventually(async () => flaky.hits.length === 3, 5000);
    assert.ok(flaky.hits[1]!.at - flaky.hits[0]!.at >= 55 && flaky.hits[2]!.at - flaky.hits[1]!.at >= 55);
    await finishedJob(broken.url);
    await eventually(async () => broken.hits.length === 3, 5000);
    await sleep(300);
    assert.equal(broken.hits.length, 3, 'three attempts in all, then no more');
    assert.ok(warnings.includes('webhook delivery failed'));
    await d.close();
    await flaky.close();
    await broken.close();
  });

  test('webhook URLs in log lines lose their query and userinfo', async () => {
    const broken = await receiver([503]);
    const refusedBefore = warnings.length;
    const d = outbox();
    const strict = outbox(new WebhookSender({ timeoutMs: 300 }));
    const secretUrl = `http://user:pass-secret@127.0.0.1:${broken.port}/hook?token=query-secret`;
    await finishedJob(secretUrl);
    await eventually(async () => warningDetails.length > refusedBefore);
    await eventually(async () => broken.hits.length === 3 || warnings.includes('webhook target refused'), 5000);
    await sleep(300);
    const logged = JSON.stringify(warningDetails.slice(refusedBefore));
    assert.doesNotMatch(logged, /secret|user:/, logged);
    assert.match(logged, new RegExp(`http://127\\.0\\.0\\.1:${broken.port}/hook`));
    await d.close();
    await strict.close();
    await broken.close();
  });

  test('a receiver that never answers is abandoned after the time-out and retried', async () => {
    const r = await receiver(['hang', 'hang', 200]);
    const d = outbox();
    await finishedJob(r.url);
    await eventually(async () => r.hits.length === 3, 5000);
    await d.close();
    await r.close();
  });

  test('loopback is refused by default, even through a name, and allowed when configured', async () => {
    const r = await receiver([200]);
    const strict = outbox(new WebhookSender({ timeoutMs: 300 }));
    await finishedJob(r.url);
    await finishedJob(`http://localhost:${r.port}/hook`);
    await eventually(async () => warnings.filter((w) => w === 'webhook target refused').length >= 2);
    await sleep(200);
    assert.equal(r.hits.length, 0, 'a refused target is not retried either');
    await strict.close();
    const allowing = outbox();
    await finishedJob(`http://localhost:${r.port}/hook`);
    await eventually(async () => r.hits.length === 1);
    await allowing.close();
    await r.close();
  });

  test('a delivery owed by a process that stops is made by the next one', async () => {
    const r = await receiver([500, 200]);
    const first = outbox(undefined, { retryDelayMs: 400 });
    await finishedJob(r.url);
    await eventually(async () => r.hits.length === 1);
    await first.close();
    await sleep(600);
    assert.equal(r.hits.length, 1, 'a closed outbox sends nothing more');
    const next = outbox(undefined, { retryDelayMs: 400 });
    await eventually(async () => r.hits.length === 2, 3000);
    await next.close();
    await r.close();
  });

  test('two processes sharing the store send each delivery once', async () => {
    const r = await receiver([200]);
    const other = await t.reopen();
    const [a, b] = [outbox(), outbox(undefined, {}, other)];
    for (let i = 0; i < 20; i++) await finishedJob(r.url);
    await eventually(async () => r.hits.length === 20, 5000);
    await sleep(300);
    assert.equal(r.hits.length, 20);
    assert.equal(new Set(r.hits.map((hit) => JSON.parse(hit.body).id)).size, 20);
    await a.close();
    await b.close();
    await other.close();
    await r.close();
  });
});

describe('targets', () => {
  test('checkTarget refuses what can never be a public webhook', async () => {
    // No test resolves a public name for real.
    const d = new WebhookSender({ resolve: async () => ['93.184.215.14'] });
    for (const url of [
      'ftp://example.com/x',
      '/relative',
      'http://user:pass@example.com/',
      'http://10.0.0.1/',
      'http://[::1]/',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/',
      'http://localhost:8080/',
    ]) {
      assert.equal(typeof (await d.checkTarget(url)), 'string', url);
    }
    assert.equal(await d.checkTarget('https://example.com/hook'), undefined);
    assert.equal(await new WebhookSender({ allowedCidrs: ['127.0.0.0/8'] }).checkTarget('http://127.0.0.1:9/x'), undefined);
  });

  test('address classification', () => {
    const refused = [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::',
    ];
    for (const address of refused) assert.equal(new AddressPolicy([]).refuses(address), true, address);
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) assert.equal(new AddressPolicy([]).refuses(address), false, address);
    assert.equal(new AddressPolicy(['10.0.0.0/8']).refuses('10.1.2.3'), false);
    const withTypo = new AddressPolicy(['10.0.0.0/33', '192.168.0.0/16']);
    assert.equal(withTypo.refuses('10.1.2.3'), true, 'an unparsable range allows nothing');
    assert.equal(withTypo.refuses('192.168.1.1'), false, 'the ranges after it still apply');
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
