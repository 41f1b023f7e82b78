// Scenario: thousands of malformed requests over every route (from the server's own OpenAPI
// document plus the load-balancer prefix and /metrics) and raw malformed HTTP over a socket,
// chosen and ordered by a seeded generator (CHAOS_SEED) so a run can be replayed.
// Promises checked: no 5xx; every error answer is application/problem+json; memory of the server
// process grows by less than 20 MB over the run.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { GantryProcess } from './support/gantry-process.js';
import { Cleanup } from './support/cleanup.js';
import { inParallel, sleep } from './support/bounded.js';
import { createEndpoint, loadBalancerEndpointBody, queueEndpointBody } from './support/endpoints.js';
import { callJson, request } from './support/http.js';
import { createApiKey, createWorkerCredential, revokeApiKey } from './support/store-access.js';
import { report } from './support/figures.js';
import { chaosSeed, Prng } from './support/prng.js';
import { discoverRoutes } from './support/fuzz/routes.js';
import { RequestFactory, type FuzzIds, type FuzzKeys, type FuzzRequest } from './support/fuzz/requests.js';
import { FuzzFindings, judge, type Outcome } from './support/fuzz/verdict.js';
import { rawCases, sendRaw } from './support/fuzz/raw-http.js';

const RANDOM_MIX_REQUESTS = 1500;
const CONCURRENCY = 6;
const RSS_GROWTH_LIMIT_KB = 20 * 1024;
const HIGH_RATE_LIMIT = '1000000000';

const cleanup = new Cleanup();
after(() => cleanup.run());

async function setUpResources(server: GantryProcess, dataDir: string): Promise<{ ids: FuzzIds; keys: FuzzKeys }> {
  const admin = server.adminKey!;
  const endpointId = await createEndpoint(server.url, admin, queueEndpointBody('fuzz-queue'));
  const lbEndpointId = await createEndpoint(server.url, admin, loadBalancerEndpointBody('fuzz-lb'));
  const template = await callJson(server.url, admin, 'POST', '/v2/templates', { name: 'fuzz-template', image: 'fuzz/t:1' });
  assert.equal(template.status, 201, template.text);
  const job = await callJson(server.url, admin, 'POST', `/v2/${endpointId}/run`, { input: { fuzz: true } });
  assert.equal(job.status, 200, job.text);
  const workerCredential = await createWorkerCredential({ dataDir }, endpointId);
  // A take makes the worker known to the server and puts the job in progress on it.
  const take = await request(`${server.url}/v2/${endpointId}/job-take/fuzz-worker`, { headers: { authorization: workerCredential } });
  assert.ok(take.status === 200 || take.status === 204, `job-take answered ${take.status} ${take.text}`);
  const readOnly = await createApiKey({ dataDir }, { permission: 'read', name: 'fuzz-read' });
  const otherAccount = await createApiKey({ dataDir }, { accountName: 'fuzz-other-account' });
  const revoked = await createApiKey({ dataDir }, { name: 'fuzz-revoked' });
  await revokeApiKey({ dataDir }, revoked.keyId);
  return {
    ids: { endpointId, lbEndpointId, jobId: job.json.id, workerId: 'fuzz-worker', templateId: template.json.id },
    keys: { admin, readOnly: readOnly.token, otherAccount: otherAccount.token, revoked: revoked.token, workerCredential },
  };
}

async function send(base: string, fuzz: FuzzRequest): Promise<Outcome> {
  const answer = await request(`${base}${fuzz.path}`, {
    method: fuzz.method,
    headers: fuzz.headers,
    body: fuzz.body?.(),
    timeoutMs: 20_000,
  });
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type') ?? '',
    retryAfter: answer.headers.get('retry-after'),
    error: answer.error,
  };
}

/** Resident memory after two forced collections with a pause between them. */
async function settledRssKb(server: GantryProcess): Promise<number> {
  server.forceGc();
  await sleep(500);
  server.forceGc();
  await sleep(500);
  return server.rssKb();
}

test('malformed requests on every route never get a 5xx or a non-problem error, and leak no memory', { timeout: 240_000 }, async (t) => {
  const dataDir = cleanup.tempDir('fuzz');
  const server = await GantryProcess.start({
    gcOnSignal: true,
    args: [
      '--data-dir',
      dataDir,
      '--worker-provider',
      'none',
      // Answer at once instead of holding: long-polls, stream reads and balanced requests.
      '--take-wait-ms',
      '0',
      '--stream-wait-ms',
      '0',
      '--lb-hold-ms',
      '0',
      '--rate-limit-minute',
      HIGH_RATE_LIMIT,
      '--rate-limit-hour',
      HIGH_RATE_LIMIT,
      '--rate-limit-day',
      HIGH_RATE_LIMIT,
      // Invalid keys are part of the fuzz: the per-address limit on failed logins would answer
      // most requests 429 before they reach their route.
      '--auth-failure-limit',
      '1000000',
      '--max-output-bytes',
      '65536',
    ],
  });
  cleanup.add('kill the server', () => server.kill());
  const { ids, keys } = await setUpResources(server, dataDir);

  const seed = chaosSeed();
  const prng = new Prng(seed);
  const routes = await discoverRoutes(server.url);
  const factory = new RequestFactory(ids, keys);
  const requests = prng.shuffle([
    ...routes.flatMap((route) => factory.all(route)),
    ...factory.randomMix(routes, prng, RANDOM_MIX_REQUESTS),
  ]);

  const findings = new FuzzFindings();
  const run = (batch: FuzzRequest[], into: FuzzFindings) =>
    inParallel(batch, CONCURRENCY, async (fuzz) => {
      const outcome = await send(server.url, fuzz);
      into.record(fuzz, outcome, judge(fuzz, outcome));
    });
  const started = Date.now();
  // Memory is measured across a second pass of the very same requests: a first pass settles what
  // any long-running server allocates once (compiled code, caches, allocator arenas), so growth
  // over the second is what the requests themselves keep.
  const warmup = new FuzzFindings();
  await run(requests, warmup);
  const rssBeforeKb = await settledRssKb(server);
  await run(requests, findings);

  const raw = rawCases(keys.admin, ids.endpointId);
  const rawOutcomes = { answered: 0, closed: 0, waiting: 0 };
  for (const rawCase of raw) {
    const answer = await sendRaw(server.port, rawCase);
    rawOutcomes[answer.outcome]++;
    if (answer.outcome !== 'answered') continue;
    const fuzz: FuzzRequest = {
      kind: `raw:${rawCase.name}`,
      route: 'raw socket',
      method: 'RAW',
      path: rawCase.name,
      headers: {},
      toWorkerlessBalancer: false,
    };
    findings.record(
      fuzz,
      { status: answer.status, contentType: answer.contentType, retryAfter: null },
      judge(fuzz, { status: answer.status, contentType: answer.contentType, retryAfter: null }),
    );
  }
  const elapsedMs = Date.now() - started;
  const rssAfterKb = server.alive ? await settledRssKb(server) : -1;

  report(t, 'fuzz', {
    seed,
    routes: routes.length,
    requests: requests.length,
    raw_requests: raw.length,
    raw_closed_without_answer: rawOutcomes.closed,
    raw_left_waiting: rawOutcomes.waiting,
    failures: findings.failures,
    failure_kinds: findings.kinds,
    ...findings.byVerdict.toFigures('verdict_'),
    ...findings.byStatus.toFigures('status_'),
    rss_before_mb: (rssBeforeKb / 1024).toFixed(1),
    rss_after_mb: (rssAfterKb / 1024).toFixed(1),
    rss_growth_mb: ((rssAfterKb - rssBeforeKb) / 1024).toFixed(1),
    elapsed_ms: elapsedMs,
  });
  if (findings.failures > 0) console.log(`# fuzz failures, grouped by request shape and answer:\n${findings.describe()}`);
  assert.equal(server.alive, true, `the server died (${server.ending}):\n${server.output()}`);
  assert.equal(
    warmup.failures,
    0,
    `${warmup.failures} fuzz requests broke a promise in the first pass (seed ${seed}):\n${warmup.describe()}`,
  );
  assert.equal(findings.failures, 0, `${findings.failures} fuzz requests broke a promise (seed ${seed}):\n${findings.describe()}`);
  assert.ok(
    rssAfterKb - rssBeforeKb <= RSS_GROWTH_LIMIT_KB,
    `server RSS grew ${((rssAfterKb - rssBeforeKb) / 1024).toFixed(1)} MB (limit 20 MB)`,
  );
});
