// Scenario: Gantry runs the example worker as a local process (--worker-provider process); the
// worker is killed with SIGKILL in the middle of a job. Promise checked: the job goes back to the
// queue and completes on the replacement worker Gantry starts; no job is lost.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { GantryProcess, REPO_ROOT } from './support/gantry-process.js';
import { Cleanup } from './support/cleanup.js';
import { waitFor } from './support/bounded.js';
import { createEndpoint, queueEndpointBody } from './support/endpoints.js';
import { callJson } from './support/http.js';
import { childrenOf, killIfStill } from '../support/process-tree.js';
import { settleJobs } from './support/job-accounting.js';
import { report } from './support/figures.js';

const JOBS = 4;
const JOB_SLEEP_MS = 2500;

const cleanup = new Cleanup();
after(() => cleanup.run());

const isEchoWorker = (commandLine: string) => commandLine.includes('examples/echo-worker.ts');

test('a worker killed with SIGKILL mid-job is replaced and its job completes; none is lost', { timeout: 120_000 }, async (t) => {
  const dataDir = cleanup.tempDir('worker-kill');
  const server = await GantryProcess.start({
    args: [
      '--data-dir',
      dataDir,
      '--worker-provider',
      'process',
      '--worker-work-dir',
      REPO_ROOT,
      // Short lease, ping and back-off: the killed worker's job is recovered in seconds, not minutes.
      '--job-lease-ms',
      '1000',
      '--worker-ping-interval-ms',
      '200',
      '--crash-backoff-ms',
      '100',
      '--scale-interval-ms',
      '200',
      '--sweep-interval-ms',
      '100',
      '--take-wait-ms',
      '1000',
    ],
  });
  cleanup.add('kill the server', () => server.kill());
  // Workers run in process groups of their own: a server killed by SIGKILL would leave them behind.
  const workerPids = new Set<number>();
  cleanup.add('kill the workers', () => {
    if (server.pid) for (const child of childrenOf(server.pid)) if (isEchoWorker(child.commandLine)) workerPids.add(child.pid);
    for (const pid of workerPids) killIfStill(pid, isEchoWorker, { group: true });
  });
  const apiKey = server.adminKey!;
  const endpointId = await createEndpoint(
    server.url,
    apiKey,
    queueEndpointBody('worker-kill', {
      args: 'node --import tsx examples/echo-worker.ts',
      workers: { min: 1, max: 1, idleTimeout: 60 },
    }),
  );

  const jobIds: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const submitted = await callJson(server.url, apiKey, 'POST', `/v2/${endpointId}/run`, {
      input: { sleepMs: JOB_SLEEP_MS, echo: `job-${i}` },
    });
    assert.equal(submitted.status, 200, submitted.text);
    jobIds.push(submitted.json.id);
  }
  const status = async (id: string) => (await callJson(server.url, apiKey, 'GET', `/v2/${endpointId}/status/${id}`)).json;

  // The first worker cold-starts (tsx compiles the example), then takes job 0.
  const victimJob = await waitFor(
    'a job in progress on the first worker',
    async () => {
      for (const id of jobIds) if ((await status(id))?.status === 'IN_PROGRESS') return id;
      return undefined;
    },
    { timeoutMs: 45_000, stepMs: 100 },
  );
  const victim = await waitFor(
    'the worker process under the server',
    async () => {
      const found = childrenOf(server.pid!).find((child) => isEchoWorker(child.commandLine));
      return found;
    },
    { timeoutMs: 5000, stepMs: 50 },
  );
  workerPids.add(victim.pid);

  const killedAt = Date.now();
  process.kill(victim.pid, 'SIGKILL');
  const replacement = await waitFor(
    'a replacement worker process',
    async () => {
      const found = childrenOf(server.pid!).find((child) => isEchoWorker(child.commandLine) && child.pid !== victim.pid);
      return found;
    },
    { timeoutMs: 30_000, stepMs: 50 },
  );
  const replacementStartedMs = Date.now() - killedAt;
  workerPids.add(replacement.pid);
  const requeued = await status(victimJob);

  const account = await settleJobs(() => [server.url], apiKey, endpointId, jobIds, 60_000);
  const victimFinal = await status(victimJob);
  const victimRecoveredMs = Date.now() - killedAt;
  report(t, 'worker-kill', {
    jobs: JOBS,
    completed: account.completed,
    failed: account.failed,
    lost: account.lost,
    killed_job_retries: Number(victimFinal?.retries ?? 0),
    killed_job_status_after_kill: String(requeued?.status),
    replacement_started_ms: replacementStartedMs,
    all_done_after_kill_ms: victimRecoveredMs,
  });
  assert.equal(account.lost, 0, `jobs not completed: ${account.lostExamples.join(', ')}\n${server.output()}`);
  assert.equal(victimFinal?.output, `job-${jobIds.indexOf(victimJob)}`, 'the killed job completed with its own output');
  assert.ok(Number(victimFinal?.retries) >= 1, `the killed job was returned to the queue: ${JSON.stringify(victimFinal)}`);
});
