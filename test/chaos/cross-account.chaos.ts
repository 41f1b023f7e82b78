// Scenario: two accounts on one server. Account B's keys (full, read-only, endpoint-restricted)
// try every read, write and delete route on account A's ids, through A's paths and B's own, and
// each account's worker credential tries the other's endpoint and worker ids.
// Promises checked: every probe is refused (403/404 for keys; 401/403/404/409 for worker
// credentials) and A's resources read the same before and after.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { GantryProcess } from './support/gantry-process.js';
import { Cleanup } from './support/cleanup.js';
import { callJson, describeAnswer, request } from './support/http.js';
import { createApiKey } from './support/store-access.js';
import { createTenant, snapshot, type Tenant } from './support/tenant.js';
import { apiProbes, workerProbes, type Probe } from './support/cross-account-probes.js';
import { report, StatusTally } from './support/figures.js';

const KEY_REFUSALS = new Set([403, 404]);
const WORKER_REFUSALS = new Set([401, 403, 404, 409]);
/**
 * A result or chunk for a job that is not the endpoint's answers exactly as one for a job that
 * expired (200, ignored): the SDK must not lose a late result, and the same answer for both tells
 * nothing about other endpoints' jobs. The snapshots below prove nothing changed.
 */
const IGNORED_RESULT = new Set([...WORKER_REFUSALS, 200]);
const isResultPost = (probe: Probe) => /\/job-(done|stream)\//.test(probe.path);

const cleanup = new Cleanup();
after(() => cleanup.run());

test(
  "another account can neither read nor change an account's resources, by any key or worker credential",
  { timeout: 120_000 },
  async (t) => {
    const dataDir = cleanup.tempDir('cross-account');
    const server = await GantryProcess.start({
      args: ['--data-dir', dataDir, '--worker-provider', 'none', '--take-wait-ms', '0', '--stream-wait-ms', '0'],
    });
    cleanup.add('kill the server', () => server.kill());
    const store = { dataDir };
    const a = await createTenant(server.url, store, 'alpha', server.adminKey!);
    const bFull = await createApiKey(store, { accountName: 'beta', name: 'beta-full' });
    const b = await createTenant(server.url, store, 'beta', bFull.token);
    const aReadKey = await createApiKey(store, { name: 'alpha-read', permission: 'read' });
    const bKeys: Record<string, string> = {
      full: bFull.token,
      read: (await createApiKey(store, { accountName: 'beta', permission: 'read' })).token,
      endpoints: (await createApiKey(store, { accountName: 'beta', permission: 'endpoints', endpointIds: [b.endpointId] })).token,
    };

    const snapshots = async () => {
      try {
        return { a: await snapshot(server.url, a), b: await snapshot(server.url, b) };
      } catch (error) {
        throw new Error(`${(error as Error).message}\nthe server is ${server.ending}:\n${server.output()}`);
      }
    };
    const before = await snapshots();
    const answers = new StatusTally();
    const violations: string[] = [];
    const check = (who: string, probe: Probe, status: number, text: string, allowed: Set<number>) => {
      answers.add(status);
      if (!allowed.has(status)) violations.push(`${who}: ${probe.method} ${probe.path} -> ${text}`);
    };

    for (const [kind, key] of Object.entries(bKeys)) {
      for (const probe of apiProbes(a, b)) {
        const answer = await callJson(server.url, key, probe.method, probe.path, probe.body, 10_000);
        check(`beta ${kind} key`, probe, answer.status, describeAnswer(answer), KEY_REFUSALS);
      }
    }
    const workerPairs: [Tenant, Tenant][] = [
      [a, b],
      [b, a],
    ];
    for (const [intruder, victim] of workerPairs) {
      for (const probe of workerProbes(intruder, victim)) {
        const answer = await request(`${server.url}${probe.path}`, {
          method: probe.method,
          headers: { authorization: intruder.workerCredential, ...(probe.body ? { 'content-type': 'application/json' } : {}) },
          body: probe.body ? JSON.stringify(probe.body) : undefined,
          timeoutMs: 10_000,
        });
        check(
          `${intruder.name}'s worker credential`,
          probe,
          answer.status,
          describeAnswer(answer),
          isResultPost(probe) ? IGNORED_RESULT : WORKER_REFUSALS,
        );
      }
    }
    const after = await snapshots();
    const aReadStillWorks = (await callJson(server.url, aReadKey.token, 'GET', `/v2/serverless/${a.endpointId}`)).status;

    report(t, 'cross-account', {
      probes: answers.total,
      refused: answers.total - violations.length,
      violations: violations.length,
      ...answers.toFigures('status_'),
      alpha_unchanged: JSON.stringify(after.a) === JSON.stringify(before.a),
      beta_unchanged: JSON.stringify(after.b) === JSON.stringify(before.b),
    });
    assert.deepEqual(violations, [], `probes that were not refused:\n${violations.join('\n')}`);
    assert.deepEqual(after.a, before.a, "alpha's resources are unchanged");
    assert.deepEqual(after.b, before.b, "beta's resources are unchanged by alpha's worker credential");
    assert.equal(aReadStillWorks, 200, "alpha's other API key still works");
  },
);
