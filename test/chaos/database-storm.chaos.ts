// Scenario: two replicas under load while their throwaway database misbehaves:
//   (a) every connection to it is terminated every 150 ms for 3 s (pg_terminate_backend);
//   (b) it refuses new connections (ALLOW_CONNECTIONS false) and existing ones are terminated,
//       for 2 s, then it is allowed again.
// Promises checked: no replica exits; every answer meanwhile is 2xx or 503 with Retry-After;
// full service returns within a second of the database; no acknowledged job is lost.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Cleanup } from './support/cleanup.js';
import { LoopGuard, sleep } from './support/bounded.js';
import { createEndpoint, queueEndpointBody } from './support/endpoints.js';
import { createWorkerCredential } from './support/store-access.js';
import { ExecutionLog, ProtocolWorker } from './support/protocol-worker.js';
import { settleJobs } from './support/job-accounting.js';
import { report } from './support/figures.js';
import { POSTGRES_SKIP, ThrowawayDatabase } from './support/postgres.js';
import { startReplicas } from './support/replicas.js';
import { callJson } from './support/http.js';
import { OutageAnswers } from './support/outage-answers.js';
import type { GantryProcess } from './support/gantry-process.js';

const TERMINATE_EVERY_MS = 150;
const TERMINATE_STORM_MS = 3000;
const REFUSAL_MS = 2000;
const FULL_SERVICE_BUDGET_MS = 1000;
const RECOVERY_TIMEOUT_MS = 20_000;

if (POSTGRES_SKIP) console.log(`# ${POSTGRES_SKIP} (database-storm)`);
const cleanup = new Cleanup();
after(() => cleanup.run());

interface Traffic {
  replicas: GantryProcess[];
  adminKey: string;
  endpointId: string;
  accepted: string[];
}

/** One round of client traffic on every replica: list endpoints, submit a job, read the health. */
async function trafficRound(traffic: Traffic, answers: OutageAnswers): Promise<boolean> {
  let allOk = true;
  await Promise.all(
    traffic.replicas.map(async (replica) => {
      const calls: [string, string, unknown?][] = [
        ['GET', '/v2/serverless'],
        ['POST', `/v2/${traffic.endpointId}/run`, { input: { storm: true } }],
        ['GET', `/v2/${traffic.endpointId}/health`],
      ];
      for (const [method, path, body] of calls) {
        const answer = await callJson(replica.url, traffic.adminKey, method, path, body, 8000);
        answers.record(`${method} ${replica.url}${path}`, answer);
        if (answer.status === 200 && method === 'POST' && typeof answer.json?.id === 'string') traffic.accepted.push(answer.json.id);
        if (answer.status < 200 || answer.status >= 300) allOk = false;
      }
    }),
  );
  return allOk;
}

/** Keeps traffic flowing while `guard` runs. */
async function steadyTraffic(traffic: Traffic, answers: () => OutageAnswers, guard: LoopGuard): Promise<void> {
  for (let round = 0; round < 5000 && guard.running; round++) {
    await trafficRound(traffic, answers());
    await sleep(20);
  }
}

/** Time from now until one full round of traffic succeeds on every replica. */
async function measureRecovery(traffic: Traffic, answers: OutageAnswers): Promise<number> {
  const started = Date.now();
  for (let round = 0; round < 1000 && Date.now() - started < RECOVERY_TIMEOUT_MS; round++) {
    // A replica that exited cannot recover by itself: no point waiting for it.
    if (traffic.replicas.some((replica) => !replica.alive)) return -1;
    if (await trafficRound(traffic, answers)) return Date.now() - started;
    await sleep(25);
  }
  return -1;
}

async function terminateRepeatedly(db: ThrowawayDatabase, forMs: number): Promise<number> {
  let terminated = 0;
  const until = Date.now() + forMs;
  for (let round = 0; round < 1000 && Date.now() < until; round++) {
    terminated += await db.terminateBackends();
    await sleep(TERMINATE_EVERY_MS);
  }
  return terminated;
}

test(
  'replicas survive a database whose connections are terminated or refused, answering 2xx or 503 + Retry-After',
  { skip: POSTGRES_SKIP, timeout: 150_000 },
  async (t) => {
    const db = await ThrowawayDatabase.create();
    cleanup.add(`drop database ${db.name}`, () => db.drop());
    const { replicas, adminKey } = await startReplicas(db, cleanup, 2);
    const endpointId = await createEndpoint(replicas[0]!.url, adminKey, queueEndpointBody('database-storm'));
    const credential = await createWorkerCredential({ databaseUrl: db.url }, endpointId);
    const traffic: Traffic = { replicas, adminKey, endpointId, accepted: [] };

    const working = new LoopGuard(120_000);
    const loading = new LoopGuard(60_000);
    cleanup.add('stop the load', () => {
      working.stop();
      loading.stop();
    });
    const log = new ExecutionLog();
    const workerLoops = replicas.map((replica, i) =>
      new ProtocolWorker({ target: () => replica.url, endpointId, workerId: `storm-worker-${i}`, credential, log, guard: working }).run(),
    );

    const phases = {
      warmup: new OutageAnswers(),
      terminate: new OutageAnswers(),
      refuse: new OutageAnswers(),
      recovery: new OutageAnswers(),
    };
    let current = phases.warmup;
    const load = steadyTraffic(traffic, () => current, loading);
    await sleep(1000);

    current = phases.terminate;
    const terminated = await terminateRepeatedly(db, TERMINATE_STORM_MS);
    current = phases.recovery;
    const recoveryAfterTerminateMs = await measureRecovery(traffic, phases.recovery);

    current = phases.refuse;
    await db.allowConnections(false);
    const refusedTerminated = await terminateRepeatedly(db, REFUSAL_MS);
    await db.allowConnections(true);
    current = phases.recovery;
    const recoveryAfterRefusalMs = await measureRecovery(traffic, phases.recovery);

    loading.stop();
    await load;
    const account = await settleJobs(() => replicas.map((r) => r.url), adminKey, endpointId, traffic.accepted, 30_000);
    working.stop();
    await Promise.all(workerLoops);

    const storm = [phases.terminate, phases.refuse];
    report(t, 'database-storm', {
      backends_terminated: terminated + refusedTerminated,
      ...phases.terminate.byStatus.toFigures('terminate_'),
      ...phases.refuse.byStatus.toFigures('refuse_'),
      broken_answers: storm.reduce((sum, phase) => sum + phase.brokenCount, 0),
      recovery_after_terminate_ms: recoveryAfterTerminateMs,
      recovery_after_refusal_ms: recoveryAfterRefusalMs,
      accepted: account.accepted,
      completed: account.completed,
      lost: account.lost,
      replicas: replicas.map((r) => r.ending).join('/'),
    });
    const exited = replicas.filter((replica) => !replica.alive);
    assert.equal(
      exited.length,
      0,
      exited.map((replica) => `${replica.url} ended (${replica.ending}):\n${replica.output()}`).join('\n---\n'),
    );
    for (const [name, phase] of Object.entries({ terminate: phases.terminate, refuse: phases.refuse })) {
      assert.equal(
        phase.brokenCount,
        0,
        `${name} phase: ${phase.brokenCount} answers were neither 2xx nor 503 with Retry-After, e.g.\n${phase.broken.join('\n')}\n--- replica logs:\n${replicas.map((r) => r.output(1500)).join('\n---\n')}`,
      );
    }
    for (const [name, ms] of Object.entries({ terminate: recoveryAfterTerminateMs, refuse: recoveryAfterRefusalMs })) {
      assert.ok(
        ms >= 0 && ms <= FULL_SERVICE_BUDGET_MS,
        `full service after the ${name} phase took ${ms} ms (budget ${FULL_SERVICE_BUDGET_MS} ms, -1 = not within ${RECOVERY_TIMEOUT_MS} ms)`,
      );
    }
    assert.equal(account.lost, 0, `acknowledged jobs lost: ${account.lostExamples.join(', ')}`);
  },
);
