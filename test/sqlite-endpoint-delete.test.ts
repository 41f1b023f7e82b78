// Deleting an endpoint with a long history on SQLite: its jobs go in batches, each committed on
// its own, so the server answers other requests meanwhile instead of holding the event loop for
// the whole delete. What a user can notice: another process sees the jobs go part by part, and
// the delete still answers only once every one of them is gone.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { JobRecord } from '../src/store/job-store.js';
import { DELETED_ENDPOINT_BATCH } from '../src/store/sqlite/sqlite-endpoint-jobs.js';
import { anAccount, anEndpoint, aJob, aRelease, aStreamWriter } from './store-conformance/records.js';

const JOBS = DELETED_ENDPOINT_BATCH * 4 + 10;

function databaseFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'gantry-endpoint-delete-')), 'gantry.db');
}

/** A store closed once the test is over, after the delete it started (if any) has run out, failed or not. */
function storeFor(t: TestContext, file: string): { store: SqliteStore; deleting: (run: Promise<boolean>) => Promise<boolean> } {
  const store = new SqliteStore(file);
  let pending: Promise<unknown> = Promise.resolve();
  t.after(async () => {
    await pending.catch(() => undefined);
    await store.close();
  });
  return {
    store,
    deleting: (run) => {
      pending = run;
      return run;
    },
  };
}

test('an endpoint with a long history is deleted in batches while other requests are answered', async (t) => {
  const file = databaseFile();
  const { store, deleting: tracked } = storeFor(t, file);
  const owner = anAccount();
  await store.ensureAccount(owner);
  const doomed = anEndpoint(owner.id);
  const kept = anEndpoint(owner.id);
  await store.insertEndpoint(doomed, aRelease(doomed.id, 1));
  await store.insertEndpoint(kept, aRelease(kept.id, 1));
  const jobs = Array.from({ length: JOBS }, () => aJob(doomed.id, { webhook: 'https://hooks.example/done' }));
  await Promise.all(jobs.map((job) => store.jobs.insert(job)));
  const [running] = await store.jobs.take(doomed.id, 'w1', 1, jobs[0]!.submittedAt, jobs[0]!.submittedAt + 60_000);
  await store.jobs.appendStream(running!.id, ['chunk'], aStreamWriter(doomed.id));
  const neighbour = aJob(kept.id);
  await store.jobs.insert(neighbour);

  const observer = new Database(file, { readonly: true });
  t.after(() => observer.close());
  const remaining = observer.prepare('SELECT count(*) FROM jobs WHERE endpoint_id = ?').pluck();
  const seen: number[] = [];
  let answered = false;
  const deleting = tracked(store.deleteEndpoint(owner.id, doomed.id)).then((deleted) => {
    answered = true;
    return deleted;
  });
  // Right away no worker can take a queued job of the deleted endpoint any more.
  assert.deepEqual(await store.jobs.take(doomed.id, 'w2', 5, jobs[0]!.submittedAt, jobs[0]!.submittedAt + 60_000), []);
  // Another request, made once the first jobs are gone, is answered before the delete ends.
  let neighbourRead: Promise<{ job: JobRecord | undefined; beforeDeleteAnswered: boolean }> | undefined;
  while (!answered) {
    const left = remaining.get(doomed.id) as number;
    seen.push(left);
    if (left < JOBS) neighbourRead ??= store.jobs.get(neighbour.id).then((job) => ({ job, beforeDeleteAnswered: !answered }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(await deleting, true);

  assert.ok(
    seen.some((n) => n > 0 && n < JOBS),
    `another connection saw the jobs go part by part (counts seen: ${[...new Set(seen)].join(', ')})`,
  );
  const read = await neighbourRead;
  assert.equal(read?.job?.id, neighbour.id);
  assert.ok(read?.beforeDeleteAnswered, 'a read made during the delete waited for the whole delete');
  assert.equal(remaining.get(doomed.id), 0, 'every job is gone once the delete answers');
  assert.equal(observer.prepare('SELECT count(*) FROM job_stream WHERE job_id = ?').pluck().get(running!.id), 0);
  assert.equal(observer.prepare('SELECT count(*) FROM queue_generations WHERE endpoint_id = ?').pluck().get(doomed.id), 0);
  assert.equal((await store.jobs.get(neighbour.id))?.status, 'IN_QUEUE');
});

test("a deleted endpoint's jobs send no webhook while their rows wait for their batch", async (t) => {
  const { store, deleting: tracked } = storeFor(t, databaseFile());
  const owner = anAccount();
  await store.ensureAccount(owner);
  const doomed = anEndpoint(owner.id);
  await store.insertEndpoint(doomed, aRelease(doomed.id, 1));
  // The newest jobs are taken first (the rest are low priority), so their rows go in the last batch.
  const old = Array.from({ length: DELETED_ENDPOINT_BATCH * 2 }, () => aJob(doomed.id, { lowPriority: true }));
  const newest = Array.from({ length: 3 }, () => aJob(doomed.id, { webhook: 'https://hooks.example/done' }));
  for (const job of [...old, ...newest]) await store.jobs.insert(job);
  const at = newest[0]!.submittedAt;
  const taken = await store.jobs.take(doomed.id, 'w1', 3, at, at + 60_000);
  const done = { status: 'COMPLETED' as const, output: '1', error: null, completedAt: at };
  for (const job of taken.slice(0, 2)) await store.jobs.complete(job.id, ['IN_PROGRESS'], done);
  assert.equal((await store.jobs.claimWebhooks(at, 1000, 10)).length, 2, 'finished jobs have webhooks due before the delete');

  const deleting = tracked(store.deleteEndpoint(owner.id, doomed.id));
  await new Promise((resolve) => setImmediate(resolve));
  // A worker whose credential is still cached finishes its job of the deleted endpoint.
  assert.ok(await store.jobs.complete(taken[2]!.id, ['IN_PROGRESS'], done), 'the job is still there, waiting for its batch');
  assert.deepEqual(await store.jobs.claimWebhooks(at + 10_000, 1000, 10), [], 'no webhook is claimed for a deleted endpoint');
  assert.equal(await deleting, true);
});
