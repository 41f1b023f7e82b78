// Scenario: `gantry serve` on SQLite is killed with SIGKILL while producers submit jobs and
// protocol workers execute them, then started again on the same data directory and port.
// Promise checked: no acknowledged job is lost (at-least-once); duplicates are reported.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { GantryProcess } from './support/gantry-process.js';
import { Cleanup } from './support/cleanup.js';
import { LoopGuard, sleep, waitFor } from './support/bounded.js';
import { createEndpoint, queueEndpointBody } from './support/endpoints.js';
import { createWorkerCredential } from './support/store-access.js';
import { ExecutionLog, ProtocolWorker } from './support/protocol-worker.js';
import { JobLedger, produce } from './support/producer.js';
import { settleJobs } from './support/job-accounting.js';
import { report } from './support/figures.js';

const PRODUCERS = 2;
const SUBMIT_INTERVAL_MS = 40;
const WORKERS = 2;
const LOAD_BEFORE_KILL_MS = 4000;
const LOAD_AFTER_RECOVERY_MS = 3000;
const SETTLE_TIMEOUT_MS = 30_000;

const cleanup = new Cleanup();
after(() => cleanup.run());

test('SIGKILL of the server under steady load loses no acknowledged job', { timeout: 120_000 }, async (t) => {
  const dataDir = cleanup.tempDir('server-kill');
  const server = await GantryProcess.start({
    // A short lease brings back the jobs workers held at the crash quickly.
    args: [
      '--data-dir',
      dataDir,
      '--worker-provider',
      'none',
      '--job-lease-ms',
      '1500',
      '--take-wait-ms',
      '1000',
      '--sweep-interval-ms',
      '100',
    ],
  });
  cleanup.add('kill the server', () => server.kill());
  const apiKey = server.adminKey;
  assert.ok(apiKey, `the first start prints an admin key: ${server.output()}`);
  const endpointId = await createEndpoint(server.url, apiKey, queueEndpointBody('server-kill'));
  const credential = await createWorkerCredential({ dataDir }, endpointId);

  // Producers and workers stop separately: submissions end first, workers drain what is left.
  const submitting = new LoopGuard(60_000);
  const working = new LoopGuard(90_000);
  cleanup.add('stop the load', () => {
    submitting.stop();
    working.stop();
  });
  const ledger = new JobLedger();
  const log = new ExecutionLog();
  const workers = Array.from(
    { length: WORKERS },
    (_, i) =>
      new ProtocolWorker({
        target: () => server.url,
        endpointId,
        workerId: `chaos-worker-${i}`,
        credential,
        log,
        guard: working,
        workMs: 20,
      }),
  );
  const producers = Array.from({ length: PRODUCERS }, (_, i) =>
    produce(
      { targets: () => [server.url], endpointId, apiKey, guard: submitting, intervalMs: SUBMIT_INTERVAL_MS, maxJobs: 2000, name: `p${i}` },
      ledger,
    ),
  );
  const workerLoops = workers.map((worker) => worker.run());

  await sleep(LOAD_BEFORE_KILL_MS);
  const acceptedBeforeKill = ledger.accepted.size;
  const killedAt = Date.now();
  await server.kill('SIGKILL');
  await sleep(300);
  const restartedAt = Date.now();
  await server.start();
  const listeningMs = Date.now() - restartedAt;
  const firstAccepted = await waitFor('a /run acknowledged after the restart', async () => ledger.firstAcceptedAfter(restartedAt), {
    timeoutMs: 20_000,
    stepMs: 20,
  });
  const recoveryMs = firstAccepted - restartedAt;
  await sleep(LOAD_AFTER_RECOVERY_MS);

  submitting.stop();
  await Promise.all(producers);
  const account = await settleJobs(() => [server.url], apiKey, endpointId, [...ledger.accepted.keys()], SETTLE_TIMEOUT_MS);
  working.stop();
  await Promise.all(workerLoops);

  report(t, 'server-kill', {
    accepted: account.accepted,
    accepted_before_kill: acceptedBeforeKill,
    completed: account.completed,
    failed: account.failed,
    lost: account.lost,
    duplicated: log.duplicated,
    ...ledger.answers.toFigures('run_answers_'),
    restart_listen_ms: listeningMs,
    recovery_ms: recoveryMs,
    downtime_ms: firstAccepted - killedAt,
    settle_ms: account.settleMs,
  });
  assert.equal(account.lost, 0, `acknowledged jobs lost: ${account.lostExamples.join(', ')}\n${server.output()}`);
});
