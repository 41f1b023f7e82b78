// On PostgreSQL a job's input crosses the socket and the driver only for the reads that hand it
// out: a take and the whole job's read. A status read, a completion, a retry, a page of the job
// list and a webhook claim show no input, and a client polling a job with megabytes of input
// must not have Gantry copy them on every poll. Nor does a completion return the output and error
// it has just written. Their answers map to the same objects with or without those columns, so
// what the statements return is checked: the columns of their results.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { watchQueries } from './support/statement-names.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (what PostgreSQL reads return)`);
const skip = NO_POSTGRES ?? false;

const NOW = 1_800_000_000_000;
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let store: PostgresStore;

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  store = await PostgresStore.open({ url: schema.url, max: 4 });
});

after(async () => {
  if (skip) return;
  await store.close();
  await schema.drop();
});

/** Runs `work` and answers the names of the columns every query's result had meanwhile, through a pool or a client. */
async function resultColumns(work: () => Promise<unknown>): Promise<Set<string>> {
  const seen = new Set<string>();
  const record = (result: pg.QueryResult | pg.QueryResult[]) => {
    for (const one of Array.isArray(result) ? result : [result]) for (const field of one?.fields ?? []) seen.add(field.name);
  };
  // A pool's query hands its client a callback; a client's own query (in a transaction) answers a promise.
  await watchQueries(
    [pg.Pool.prototype, pg.Client.prototype],
    (_args, answer) => {
      if (answer instanceof Promise) void answer.then(record, () => undefined);
    },
    work,
  );
  return seen;
}

test(
  'only a take and the whole job read select the input, and a completion selects neither the output nor the error it wrote',
  { skip },
  async () => {
    const jobs = store.jobs;
    const endpointId = 'endpoint-1';
    await jobs.insert({
      id: 'job-1',
      endpointId,
      accountId: 'account-1',
      input: JSON.stringify({ prompt: 'x'.repeat(10_000) }),
      webhook: 'https://hooks.example.test/done',
      s3Config: null,
      executionTimeoutMs: 60_000,
      lowPriority: false,
      retentionMs: 60_000,
      ttlMs: 600_000,
      submittedAt: NOW,
      expiresAt: NOW + 600_000,
    });
    const withInput = {
      take: await resultColumns(() => jobs.take(endpointId, 'worker-1', 1, NOW + 1, NOW + 60_000)),
      get: await resultColumns(() => jobs.get('job-1')),
    };
    const withoutInput = {
      getState: await resultColumns(() => jobs.getState('job-1')),
      complete: await resultColumns(async () => {
        const failed = { status: 'FAILED', output: '{"partial":true}', error: 'boom', completedAt: NOW + 2 } as const;
        const state = await jobs.complete('job-1', ['IN_PROGRESS'], failed);
        assert.deepEqual([state?.output, state?.error], [failed.output, failed.error], 'the completion answers what it wrote');
      }),
      claimWebhooks: await resultColumns(async () => assert.equal((await jobs.claimWebhooks(NOW + 3, 30_000, 10)).length, 1)),
      list: await resultColumns(async () =>
        assert.equal((await store.jobHistory.list(endpointId, { statuses: [], limit: 50 })).jobs.length, 1),
      ),
      requeue: await resultColumns(() => jobs.requeue('job-1', ['FAILED'], NOW + 600_000)),
    };
    for (const [read, columns] of Object.entries(withInput)) assert.ok(columns.has('input'), `${read} selects the input it hands out`);
    for (const [read, columns] of Object.entries(withoutInput)) {
      assert.ok(columns.has('status'), `${read} answered a job's columns: ${[...columns].join(', ')}`);
      assert.ok(!columns.has('input'), `${read} selects no input: ${[...columns].join(', ')}`);
    }
    const completed = [...withoutInput.complete].join(', ');
    assert.ok(!withoutInput.complete.has('output') && !withoutInput.complete.has('error'), `the completion selects ${completed}`);
  },
);
