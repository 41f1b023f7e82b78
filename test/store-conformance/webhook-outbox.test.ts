// The webhook outbox kept in job rows: a finished job with a webhook is due at once, a claim
// hides it for the claim time, attempts are counted, and concurrent claimers never share one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, NOW } from './records.js';
import type { Completion, DueWebhook, NewJob } from '../../src/store/job-store.js';

const suite = useTestStore();
const CLAIM_MS = 30_000;
/** Claims are made far in the future of every earlier test's, so one test's due deliveries never leak into another's. */
let clock = NOW;

function later(): number {
  clock += 10 * CLAIM_MS;
  return clock;
}

const COMPLETED: Completion = { status: 'COMPLETED', output: '"ok"', error: null, completedAt: NOW };

function ids(due: DueWebhook[]): string[] {
  return due.map((d) => d.job.id);
}

/** Drains every due delivery, so each test starts with an empty outbox. */
async function settle(now: number): Promise<void> {
  for (const due of await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 1000)) await suite.store.jobs.webhookAttempted(due.job.id, null);
}

async function finished(extra: Partial<NewJob> = {}, completion: Completion = COMPLETED): Promise<string> {
  const job = aJob(aQueue(), { webhook: 'https://example.test/hook', ...extra });
  await suite.store.jobs.insert(job);
  await suite.store.jobs.complete(job.id, ['IN_QUEUE'], completion);
  return job.id;
}

test(`[${TEST_STORE}] a finished job with a webhook is due at once; one without never is`, async () => {
  const now = later();
  await settle(now);
  const withHook = await finished();
  await finished({ webhook: null });
  const due = await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 10);
  assert.deepEqual(ids(due), [withHook]);
  assert.equal(due[0]!.attempt, 1);
  assert.deepEqual([due[0]!.job.status, due[0]!.job.output], ['COMPLETED', '"ok"'], 'the claim carries the finished job');
});

test(`[${TEST_STORE}] a queued or running job with a webhook is not due`, async () => {
  const now = later();
  await settle(now);
  const queue = aQueue();
  await suite.store.jobs.insert(aJob(queue, { webhook: 'https://example.test/hook' }));
  await suite.store.jobs.insert(aJob(queue, { webhook: 'https://example.test/hook' }));
  await suite.store.jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  assert.deepEqual(await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 10), []);
});

test(`[${TEST_STORE}] a claimed delivery is hidden until its claim lapses, then due again as the next attempt`, async () => {
  const now = later();
  await settle(now);
  const id = await finished();
  assert.deepEqual(ids(await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 10)), [id]);
  assert.deepEqual(await suite.store.jobs.claimWebhooks(now + CLAIM_MS - 1, CLAIM_MS, 10), [], 'still claimed');
  const again = await suite.store.jobs.claimWebhooks(now + CLAIM_MS, CLAIM_MS, 10);
  assert.deepEqual(
    again.map((d) => [d.job.id, d.attempt]),
    [[id, 2]],
  );
});

test(`[${TEST_STORE}] an attempt schedules the next one, or ends the delivery`, async () => {
  const now = later();
  await settle(now);
  const retried = await finished();
  const delivered = await finished();
  await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 10);
  await suite.store.jobs.webhookAttempted(retried, now + 5);
  await suite.store.jobs.webhookAttempted(delivered, null);
  assert.deepEqual(await suite.store.jobs.claimWebhooks(now + 4, CLAIM_MS, 10), []);
  assert.deepEqual(
    (await suite.store.jobs.claimWebhooks(now + 5, CLAIM_MS, 10)).map((d) => [d.job.id, d.attempt]),
    [[retried, 2]],
  );
  await suite.store.jobs.webhookAttempted(retried, null);
  assert.deepEqual(await suite.store.jobs.claimWebhooks(now + 10 * CLAIM_MS, CLAIM_MS, 10), [], 'the delivered one never comes back');
});

test(`[${TEST_STORE}] the oldest due delivery is claimed first, up to the limit`, async () => {
  const now = later();
  await settle(now);
  const retry = await finished();
  await suite.store.jobs.claimWebhooks(now, CLAIM_MS, 10);
  await suite.store.jobs.webhookAttempted(retry, now + 2);
  const fresh = await finished();
  const due = await suite.store.jobs.claimWebhooks(now + 3, CLAIM_MS, 10);
  assert.deepEqual(ids(due), [fresh, retry], 'due since completion (0) before due at now + 2');
  await suite.store.jobs.webhookAttempted(fresh, now + 4);
  await suite.store.jobs.webhookAttempted(retry, now + 5);
  assert.deepEqual(ids(await suite.store.jobs.claimWebhooks(now + 6, CLAIM_MS, 1)), [fresh]);
});

test(`[${TEST_STORE}] every way to a terminal status makes the delivery due: timeout and lost leases too`, async () => {
  const now = later();
  await settle(now);
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const slow = aJob(queue, { webhook: 'https://example.test/hook', executionTimeoutMs: 10 });
  const lost = aJob(queue, { webhook: 'https://example.test/hook', executionTimeoutMs: 60_000 });
  for (const job of [slow, lost]) await jobs.insert(job);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 100);
  await jobs.timeOutOverdue(NOW + 10, 10);
  await jobs.releaseLapsedLeases(NOW + 200, 1, 10);
  const due = await jobs.claimWebhooks(now, CLAIM_MS, 10);
  assert.deepEqual(
    due.map((d) => [d.job.id, d.job.status]).sort(),
    [
      [lost.id, 'FAILED'],
      [slow.id, 'TIMED_OUT'],
    ].sort(),
  );
});

test(`[${TEST_STORE}] a retried job owes nothing until it finishes again, then starts over at attempt 1`, async () => {
  const now = later();
  await settle(now);
  const jobs = suite.store.jobs;
  const id = await finished({}, { status: 'FAILED', output: null, error: 'boom', completedAt: NOW });
  await jobs.claimWebhooks(now, CLAIM_MS, 10);
  await jobs.webhookAttempted(id, now + 1);
  await jobs.requeue(id, ['FAILED'], NOW + 99_000);
  await jobs.webhookAttempted(id, now + 1);
  assert.deepEqual(await jobs.claimWebhooks(now + 2, CLAIM_MS, 10), [], 'nothing due while it is queued again');
  await jobs.complete(id, ['IN_QUEUE'], COMPLETED);
  assert.deepEqual(
    (await jobs.claimWebhooks(now + 2, CLAIM_MS, 10)).map((d) => [d.job.id, d.attempt, d.job.status]),
    [[id, 1, 'COMPLETED']],
  );
});

test(`[${TEST_STORE}] processes claiming at once never claim the same delivery`, async () => {
  const now = later();
  await settle(now);
  const expected = new Set<string>();
  for (let i = 0; i < 40; i++) expected.add(await finished());
  const stores = [suite.store, await suite.another(), await suite.another()];
  const claimers = stores.map(async (store) => {
    const mine: string[] = [];
    for (;;) {
      const due = await store.jobs.claimWebhooks(now, CLAIM_MS, 3);
      if (due.length === 0) return mine;
      mine.push(...ids(due));
    }
  });
  const claimed = (await Promise.all(claimers)).flat();
  assert.equal(claimed.length, 40, 'each delivery claimed once');
  assert.deepEqual(new Set(claimed), expected);
});
