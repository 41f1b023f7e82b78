// A take on PostgreSQL commits without waiting for the WAL flush (docs/decisions/0028); everything
// else keeps synchronous_commit on. What a user would notice if the take's setting leaked to the
// pooled connection's next statement: a submit answered before it was on disk, lost in a crash.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_POSTGRES } from './support/test-store.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { aJob, aQueue } from './store-conformance/records.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (take commit)`);
const skip = NO_POSTGRES ?? false;

let database: ThrowawayDatabase;
let store: PostgresStore;

before(async () => {
  if (skip) return;
  database = await createThrowawayDatabase('gantry_take_commit_test');
  // One connection for the job statements: the statements after the take run on the very session it ran on.
  store = await PostgresStore.open({ url: database.url, max: 1 });
});

after(async () => {
  if (skip) return;
  await store.close();
  await database.drop();
});

const synchronousCommit = async () =>
  (await store.batchPool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;

test("a take's unflushed commit does not carry over to the session's next statements", { skip }, async () => {
  const queue = aQueue();
  const jobs = [aJob(queue), aJob(queue)];
  for (const job of jobs) await store.jobs.insert(job);
  const [taken] = await store.jobs.take(queue, 'w1', 1, jobs[0]!.submittedAt, jobs[0]!.submittedAt + 60_000);
  assert.equal(taken?.id, jobs[0]!.id);
  assert.equal(await synchronousCommit(), 'on');

  const empty = await store.jobs.take('another-endpoint', 'w1', 4, jobs[0]!.submittedAt, jobs[0]!.submittedAt + 60_000);
  assert.deepEqual(empty, []);
  assert.equal(await synchronousCommit(), 'on', 'nor does a take that found nothing');

  const later = aJob(queue);
  await store.jobs.insert(later);
  assert.equal(await synchronousCommit(), 'on');
  assert.equal((await store.jobs.get(later.id))?.status, 'IN_QUEUE');
});
