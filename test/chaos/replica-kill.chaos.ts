// Scenario: two replicas share a throwaway PostgreSQL database; producers and protocol workers
// use both; the leader is killed with SIGKILL together with the worker attached to it.
// Promise checked: every acknowledged job completes through the survivor, which takes over the
// leadership and with it the sweeper that requeues the dead worker's leased jobs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Cleanup } from './support/cleanup.js';
import { LoopGuard, sleep, waitFor } from './support/bounded.js';
import { createEndpoint, queueEndpointBody } from './support/endpoints.js';
import { createWorkerCredential } from './support/store-access.js';
import { ExecutionLog, ProtocolWorker } from './support/protocol-worker.js';
import { JobLedger, produce } from './support/producer.js';
import { settleJobs } from './support/job-accounting.js';
import { report } from './support/figures.js';
import { POSTGRES_SKIP, ThrowawayDatabase } from './support/postgres.js';
import { startReplicas } from './support/replicas.js';
import { callJson } from './support/http.js';

const LOAD_BEFORE_KILL_MS = 4000;
const LOAD_AFTER_KILL_MS = 3000;

if (POSTGRES_SKIP) console.log(`# ${POSTGRES_SKIP} (replica-kill)`);
const cleanup = new Cleanup();
after(() => cleanup.run());

test(
  'killing one of two PostgreSQL replicas loses no acknowledged job and the survivor leads',
  { skip: POSTGRES_SKIP, timeout: 150_000 },
  async (t) => {
    const db = await ThrowawayDatabase.create();
    cleanup.add(`drop database ${db.name}`, () => db.drop());
    const {
      replicas: [leader, survivor],
      adminKey,
    } = await startReplicas(db, cleanup, 2);
    assert.ok(leader && survivor);
    const endpointId = await createEndpoint(leader.url, adminKey, queueEndpointBody('replica-kill'));
    const credential = await createWorkerCredential({ databaseUrl: db.url }, endpointId);

    const submitting = new LoopGuard(60_000);
    const working = new LoopGuard(100_000);
    cleanup.add('stop the load', () => {
      submitting.stop();
      working.stop();
    });
    const ledger = new JobLedger();
    const log = new ExecutionLog();
    const onLeader = new ProtocolWorker({
      target: () => leader.url,
      endpointId,
      workerId: 'worker-on-leader',
      credential,
      log,
      guard: working,
      workMs: 150,
    });
    const onSurvivor = new ProtocolWorker({
      target: () => survivor.url,
      endpointId,
      workerId: 'worker-on-survivor',
      credential,
      log,
      guard: working,
      workMs: 20,
    });
    const workerLoops = [onLeader.run(), onSurvivor.run()];
    // Each producer prefers one replica and falls back to the other, as behind a load balancer.
    const producers = [
      produce(
        {
          targets: () => [leader.url, survivor.url],
          endpointId,
          apiKey: adminKey,
          guard: submitting,
          intervalMs: 50,
          maxJobs: 2000,
          name: 'via-leader',
        },
        ledger,
      ),
      produce(
        {
          targets: () => [survivor.url, leader.url],
          endpointId,
          apiKey: adminKey,
          guard: submitting,
          intervalMs: 50,
          maxJobs: 2000,
          name: 'via-survivor',
        },
        ledger,
      ),
    ];

    await sleep(LOAD_BEFORE_KILL_MS);
    const killedAt = Date.now();
    // The worker attached to the leader dies with it (same host): only a lease sweep can free its jobs.
    onLeader.halt();
    await leader.kill('SIGKILL');
    await waitFor('the survivor holds the leader lease', async () => (await db.leaderUrl()) === survivor.url, {
      timeoutMs: 20_000,
      stepMs: 50,
    });
    const takeoverMs = Date.now() - killedAt;
    await sleep(LOAD_AFTER_KILL_MS);

    submitting.stop();
    await Promise.all(producers);
    const account = await settleJobs(() => [survivor.url], adminKey, endpointId, [...ledger.accepted.keys()], 45_000);
    const health = await callJson(survivor.url, adminKey, 'GET', `/v2/${endpointId}/health`);
    working.stop();
    await Promise.all(workerLoops);

    report(t, 'replica-kill', {
      accepted: account.accepted,
      completed: account.completed,
      failed: account.failed,
      lost: account.lost,
      duplicated: log.duplicated,
      requeued: Number(health.json?.jobs?.retried ?? -1),
      ...ledger.answers.toFigures('run_answers_'),
      leader_takeover_ms: takeoverMs,
      settle_ms: account.settleMs,
      survivor: survivor.ending,
    });
    assert.equal(survivor.alive, true, `the survivor kept running: ${survivor.output()}`);
    assert.equal(account.lost, 0, `acknowledged jobs lost: ${account.lostExamples.join(', ')}\n${survivor.output()}`);
  },
);
