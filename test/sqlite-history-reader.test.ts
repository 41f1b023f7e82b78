// Reads of a whole history (health counts, job lists, chart series) run on a thread of their own
// on SQLite, so other requests are answered meanwhile; they still see every write committed
// before them, and a thread that cannot run hands them back to the store's connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { openSqliteDatabase } from '../src/store/sqlite/sqlite-file.js';
import { HistoryReader } from '../src/store/sqlite/history-reader.js';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';
import { aJob, aQueue, NOW } from './store-conformance/records.js';

function aStoreFile(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-history-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'gantry.db');
}

test('reads of a history leave the event loop to other requests: a job read made after them answers first', async (t) => {
  const store = new SqliteStore(aStoreFile(t));
  t.after(() => store.close());
  const busy = aQueue();
  await Promise.all(Array.from({ length: 2_000 }, () => store.jobs.insert(aJob(busy))));
  const neighbour = aJob(aQueue());
  await store.jobs.insert(neighbour);

  const done: string[] = [];
  const reads = [
    store.jobs.counts(busy).then((counts) => done.push(`counts ${counts.inQueue}`)),
    store.jobHistory.list(busy, { statuses: ['IN_PROGRESS'], limit: 10 }).then((page) => done.push(`list ${page.jobs.length}`)),
    store.jobHistory
      .series(busy, { from: 0, to: NOW + 3_600_000, stepMs: NOW + 3_600_000 })
      .then((points) => done.push(`series ${points.at(-1)!.queued}`)),
  ];
  const reading = store.jobs.get(neighbour.id).then((job) => done.push(`get ${job!.id}`));
  // Every answer that needs no turn of the event loop is in by now. On the store's own connection
  // the history reads would be among them (each runs to its end at once); on the thread none can
  // be, whatever the machine's speed, since its answers arrive as events.
  for (let i = 0; i < 100; i++) await Promise.resolve();
  assert.deepEqual(done, [`get ${neighbour.id}`], 'the history reads were answered on the event loop');
  await Promise.all([...reads, reading]);
  assert.deepEqual(done.slice(1).sort(), ['counts 2000', 'list 0', 'series 2000']);
});

test('a history read sees every write committed before it answers, even one of the group open when it was made', async (t) => {
  const store = new SqliteStore(aStoreFile(t));
  t.after(() => store.close());
  const queue = aQueue();
  await store.jobs.insert(aJob(queue));
  assert.equal((await store.jobs.counts(queue)).inQueue, 1); // the thread is running from here on

  const second = aJob(queue);
  const inserting = store.jobs.insert(second); // opens a group, committed two turns later
  const reads = Promise.all([store.jobs.counts(queue), store.jobHistory.list(queue, { statuses: [], limit: 10 })]);
  // Hold the group open a while (its commit waits for the next turn): a read that did not wait
  // for the commit would find the job missing meanwhile.
  setImmediate(() => {
    const until = Date.now() + 100;
    while (Date.now() < until);
  });
  const [counts, page] = await reads;
  await inserting;
  assert.equal(counts.inQueue, 2);
  assert.equal(page.jobs[0]?.id, second.id);
});

test('a thread that cannot start hands the reads back to the store’s connection, which answers them the same', async (t) => {
  const db = openSqliteDatabase(aStoreFile(t));
  t.after(() => db.close());
  const errors: Error[] = [];
  const reader = new HistoryReader(db, new GroupCommit(db), (error) => errors.push(error), {}, '/nonexistent/better-sqlite3.node');
  db.prepare(`INSERT INTO queue_generations (endpoint_id, generation) VALUES ('q', 3)`).run();
  const sql = 'SELECT generation FROM queue_generations WHERE endpoint_id = ?';
  assert.deepEqual(await reader.read([{ sql, params: ['q'] }]), [[{ generation: 3 }]]);
  assert.deepEqual(await reader.read([{ sql, params: ['q'] }]), [[{ generation: 3 }]]);
  assert.equal(errors.length, 1, 'the failure is reported once');
  await reader.close();
});

test('a store in memory reads its history on its own connection', async (t) => {
  const store = new SqliteStore(':memory:');
  t.after(() => store.close());
  const queue = aQueue();
  await store.jobs.insert(aJob(queue));
  assert.equal((await store.jobs.counts(queue)).inQueue, 1);
  assert.equal((await store.jobHistory.list(queue, { statuses: ['IN_QUEUE'], limit: 10 })).jobs.length, 1);
  const job = aJob(queue, { submittedAt: 5_000 });
  await store.jobs.insert(job);
  await store.jobs.complete(job.id, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: 6_000 });
  const [point] = await store.jobHistory.series(queue, { from: 5_000, to: 7_000, stepMs: 2_000 });
  assert.deepEqual([point!.submitted, point!.cancelled], [1, 1]);
});

test('a read of the thread made just before the store closes is answered', async (t) => {
  const store = new SqliteStore(aStoreFile(t));
  const queue = aQueue();
  await store.jobs.insert(aJob(queue));
  await store.jobs.counts(queue);
  const counting = store.jobs.counts(queue);
  await store.close();
  assert.equal((await counting).inQueue, 1);
});
