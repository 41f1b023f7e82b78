// SQLite runs the store calls of one event-loop turn in one transaction (group commit). What a
// caller can notice: a call answers only once its write is committed (another connection and a
// restart after kill -9 see it), one call failing does not undo the others of its turn, and
// connections of one process sharing the file take turns instead of failing as locked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { StoreConflictError } from '../src/store/shared/conflicts.js';
import { aJob, aQueue } from './store-conformance/records.js';

function databaseFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'gantry-group-commit-')), 'gantry.db');
}

test('a write has been committed when its call answers: another connection reads it at once', async () => {
  const file = databaseFile();
  const store = new SqliteStore(file);
  const other = new SqliteStore(file);
  const queue = aQueue();
  const jobs = Array.from({ length: 20 }, () => aJob(queue));
  await Promise.all(jobs.map((job) => store.jobs.insert(job)));
  for (const job of jobs) assert.equal((await other.jobs.get(job.id))?.id, job.id);
  const [taken] = await store.jobs.take(queue, 'w1', 1, jobs[0]!.submittedAt, jobs[0]!.submittedAt + 1000);
  assert.equal((await other.jobs.get(taken!.id))?.status, 'IN_PROGRESS');
  await other.close();
  await store.close();
});

test('a call that fails leaves the other calls of the same turn stored', async () => {
  const file = databaseFile();
  const store = new SqliteStore(file);
  const queue = aQueue();
  const [first, second] = [aJob(queue), aJob(queue)];
  await store.jobs.insert(first);
  const results = await Promise.allSettled([store.jobs.insert(second), store.jobs.insert(first), store.jobs.get(first.id)]);
  assert.equal(results[0].status, 'fulfilled');
  assert.ok(results[1].status === 'rejected' && results[1].reason instanceof StoreConflictError);
  assert.equal(results[2].status === 'fulfilled' && results[2].value?.id, first.id);
  await store.close();
  const reopened = new SqliteStore(file);
  assert.equal((await reopened.jobs.counts(queue)).inQueue, 2);
  await reopened.close();
});

test('two connections of one process writing in the same turn both succeed', async () => {
  const file = databaseFile();
  const stores = [new SqliteStore(file), new SqliteStore(file), new SqliteStore(file)];
  const queue = aQueue();
  await Promise.all(stores.flatMap((store) => Array.from({ length: 10 }, () => store.jobs.insert(aJob(queue)))));
  assert.equal((await stores[0]!.jobs.counts(queue)).inQueue, 30);
  for (const store of stores) await store.close();
});

test("a job read answers while another process holds the write lock, and still waits for its own turn's writes", async () => {
  const file = databaseFile();
  const store = new SqliteStore(file);
  const queue = aQueue();
  const stored = aJob(queue);
  await store.jobs.insert(stored);
  // Another writer (the CLI, say) holds the write lock for as long as this test needs.
  const writer = new Database(file);
  writer.prepare('BEGIN IMMEDIATE').run();
  try {
    assert.equal((await store.jobs.get(stored.id))?.id, stored.id, 'a read waits for no lock');
    assert.equal((await store.jobs.counts(queue)).inQueue, 1);
  } finally {
    writer.prepare('ROLLBACK').run();
  }
  // A read in the same turn as a write joins its group: it sees the write, once committed.
  const next = aJob(queue);
  const [, read] = await Promise.all([store.jobs.insert(next), store.jobs.get(next.id)]);
  assert.equal(read?.id, next.id);
  const other = new SqliteStore(file);
  assert.equal((await other.jobs.get(next.id))?.id, next.id, 'committed by the time the read answered');
  writer.close();
  await other.close();
  await store.close();
});

test('every job whose submit answered is there after the process is killed with SIGKILL', async () => {
  const file = databaseFile();
  await new SqliteStore(file).close();
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/sqlite/submit-until-killed.ts'), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged: string[] = [];
  let buffered = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (buffered + chunk.toString()).split('\n');
      buffered = lines.pop()!;
      acknowledged.push(...lines);
      if (acknowledged.length >= 500 && child.exitCode === null && !child.killed) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const store = new SqliteStore(file);
  const missing: string[] = [];
  for (const id of acknowledged) if (!(await store.jobs.get(id))) missing.push(id);
  assert.deepEqual(missing, [], 'no acknowledged job was lost');
  await store.close();
});
