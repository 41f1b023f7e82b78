// Signed webhooks, end to end: a real `gantry serve`, a real receiver on 127.0.0.1 that checks
// each delivery with the verification snippet of docs/webhooks.md and the secret from the
// owner's route; retries keep their webhook-id; the secret never reaches the logs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callApi, runCli, serve, stop, type ServeProcess } from './support/processes.js';
import { eventually } from './support/live.js';
import { startHarness } from './support/harness.js';
import { anEndpoint } from './store-conformance/records.js';

type Verify = (secret: string, headers: IncomingHttpHeaders, rawBody: string) => boolean;
interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-signed-webhooks-'));
let gantry: ServeProcess;
let key: string;
let verify: Verify;
const hits: Hit[] = [];
/** Statuses the receiver answers in turn; the last repeats. */
let answers = [500, 200];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    hits.push({ headers: req.headers, body });
    res.writeHead(answers[Math.min(hits.length - 1, answers.length - 1)]!).end();
  });
});
let hookUrl: string;

/** The documented snippet itself, taken from docs/webhooks.md, so the documentation is what is tested. */
async function documentedVerifier(): Promise<Verify> {
  const doc = readFileSync('docs/webhooks.md', 'utf8');
  const snippet = /## Verifying in Node[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(snippet, 'docs/webhooks.md has a Node verification snippet');
  const file = join(dataDir, 'verify.mjs');
  writeFileSync(file, snippet);
  return ((await import(pathToFileURL(file).href)) as { verifyGantryWebhook: Verify }).verifyGantryWebhook;
}

before(async () => {
  verify = await documentedVerifier();
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  gantry = await serve([
    '--data-dir',
    dataDir,
    '--worker-provider',
    'none',
    '--webhook-allow-cidrs',
    '127.0.0.0/8',
    '--log-level',
    'trace',
  ]);
  key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(gantry.output())?.[1] ?? '';
  assert.ok(key, gantry.output());
});
after(async () => {
  if (gantry) await stop(gantry.child);
  receiver.closeAllConnections();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown, as = key) => callApi(gantry.url, as, method, path, body);

/** A job whose webhook is due at once: cancelling it finishes it. */
async function cancelledJobOn(endpointId: string): Promise<string> {
  const run = await call('POST', `/v2/${endpointId}/run`, { input: {}, webhookV2: hookUrl });
  assert.equal(run.status, 200, run.text);
  assert.equal((await call('POST', `/v2/${endpointId}/cancel/${run.json.id}`)).status, 200);
  return run.json.id as string;
}

test("deliveries verify with the endpoint's secret, a retry keeps its webhook-id, and a rotated secret signs from then on", async () => {
  const created = await call('POST', '/v2/serverless', {
    name: 'signed',
    type: 'QUEUE',
    image: 'acme/x:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.webhookSecret, undefined, "the endpoint's representation does not carry the secret");
  const endpointId = created.json.id as string;
  const jobId = await cancelledJobOn(endpointId);
  // The first attempt is answered 500; the retry comes after the outbox's retry delay (10 s).
  await eventually(async () => hits.length === 2, 25_000, 100);
  const secret = (await call('GET', `/v2/serverless/${endpointId}/webhook-secret`)).json.secret as string;
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  for (const hit of hits) assert.equal(verify(secret, hit.headers, hit.body), true, JSON.stringify(hit.headers));
  assert.equal(JSON.parse(hits[0]!.body).id, jobId);
  assert.equal(hits[1]!.headers['webhook-id'], hits[0]!.headers['webhook-id'], 'a retry is the same delivery');
  assert.equal(verify(secret, hits[0]!.headers, hits[0]!.body.replace('CANCELLED', 'COMPLETED')), false, 'a changed body does not verify');

  const rotated = (await call('POST', `/v2/serverless/${endpointId}/webhook-secret/rotate`)).json.secret as string;
  assert.notEqual(rotated, secret);
  assert.equal((await call('GET', `/v2/serverless/${endpointId}/webhook-secret`)).json.secret, rotated);
  answers = [200];
  const before = hits.length;
  await cancelledJobOn(endpointId);
  await eventually(async () => hits.length === before + 1, 10_000, 50);
  const latest = hits.at(-1)!;
  assert.equal(verify(rotated, latest.headers, latest.body), true);
  assert.equal(verify(secret, latest.headers, latest.body), false, 'the old secret no longer verifies');
  assert.notEqual(latest.headers['webhook-id'], hits[0]!.headers['webhook-id'], 'another job is another delivery');

  const output = gantry.output();
  assert.ok(output.length > 0 && /"msg"/.test(output), 'the server logged (trace level)');
  for (const shown of [secret, rotated]) {
    assert.ok(!output.includes(shown) && !output.includes(shown.slice('whsec_'.length)), 'the secret is never logged');
  }
});

test("only a full-access key of the endpoint's account reads or rotates its secret", async () => {
  const created = await call('POST', '/v2/serverless', {
    name: 'guarded',
    type: 'QUEUE',
    image: 'acme/x:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
  });
  const path = `/v2/serverless/${created.json.id}/webhook-secret`;
  const readOnly = runCli(['keys', 'create', '--data-dir', dataDir, '--permission', 'read']).trim();
  assert.equal((await call('GET', path, undefined, readOnly)).status, 403);
  assert.equal((await call('POST', `${path}/rotate`, undefined, readOnly)).status, 403);
  const stranger = runCli(['keys', 'create', '--data-dir', dataDir, '--account', 'someone-else']).trim();
  assert.equal((await call('GET', path, undefined, stranger)).status, 404, "another account's endpoint is unknown");
  assert.equal((await call('GET', '/v2/serverless/nosuchendpoint/webhook-secret')).status, 404);
});

test('an endpoint made before signing existed gets its secret at first need, and keeps it', async () => {
  const h = await startHarness();
  try {
    const old = anEndpoint(h.adminAccountId);
    await h.services.store.insertEndpoint(old);
    assert.equal(await h.services.store.webhookSecrets.get(old.id), undefined);
    const first = (await h.call('GET', `/v2/serverless/${old.id}/webhook-secret`)).json().secret as string;
    assert.match(first, /^whsec_/);
    assert.equal((await h.call('GET', `/v2/serverless/${old.id}/webhook-secret`)).json().secret, first);
    assert.ok(!(await h.services.store.webhookSecrets.get(old.id))!.includes(first.slice(6)), 'kept sealed, not in plain text');
  } finally {
    await h.close();
  }
});
