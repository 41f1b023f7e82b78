// SQLite's write-ahead log is checkpointed by a thread beside the event loop (see
// src/store/sqlite/wal-checkpointer.ts). What a user would notice if it went wrong: a log that grows
// without end under steady writes, writes that never reach the database file, rows lost, a log
// left behind after a clean close, or a store that stops checkpointing when the thread fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';
import { WalCheckpointer, type CheckpointLimits } from '../src/store/sqlite/wal-checkpointer.js';
import { WalIndex } from '../src/store/sqlite/wal-index.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { aJob, aQueue } from './store-conformance/records.js';
import { sleep } from './support/live.js';

const PAGE_BYTES = 4096;
const ROW = 'x'.repeat(3000);

function databaseFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'gantry-checkpoint-')), 'gantry.db');
}

function openWal(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS rows (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return db;
}

/** Writes `batches` commits of `perBatch` rows through a group commit wired to a checkpointer. */
async function writeSteadily(file: string, limits: Partial<CheckpointLimits>, batches: number, perBatch: number) {
  const db = openWal(file);
  const errors: Error[] = [];
  const checkpointer = new WalCheckpointer(db, (error) => errors.push(error), limits);
  const group = new GroupCommit(db, () => checkpointer.committed());
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const index = new WalIndex(file);
  let longestLog = 0;
  for (let b = 0; b < batches; b++) {
    await group.run(async () => {
      for (let i = 0; i < perBatch; i++) insert.run(ROW);
    });
    longestLog = Math.max(longestLog, index.frames().inLog);
    await sleep(2);
  }
  return { db, checkpointer, errors, longestLog, index };
}

test('under steady writes the log is copied into the database and starts over, with every row kept', async () => {
  const file = databaseFile();
  const limits = { checkpointPages: 20, restartFrames: 300 };
  const { db, checkpointer, errors, longestLog, index } = await writeSteadily(file, limits, 400, 4);
  // Closed whatever the assertions say: a thread and a connection left open would keep the test process up.
  try {
    assert.deepEqual(errors, []);
    // The store's own connection never checkpoints: what reached the file was the thread's doing.
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0);
    assert.ok(statSync(file).size > 200 * PAGE_BYTES, `database file holds ${statSync(file).size} bytes`);
    // 1,600 rows of 3 KB wrote over 1,600 pages to the log; it started over instead of holding them all.
    // (Not bounded by a multiple of restartFrames: a restart that meets a writer on a loaded machine
    // waits a second before the next, while the writes go on.)
    const allPages = 1600;
    assert.ok(longestLog < allPages, `the log reached ${longestLog} frames`);
    assert.ok(statSync(`${file}-wal`).size < allPages * (PAGE_BYTES + 24), 'the log file stayed shorter than all the writes');
  } finally {
    await checkpointer.close(() => db.close());
    index.release();
  }
  const reopened = new Database(file, { readonly: true });
  assert.equal(reopened.prepare('SELECT count(*) FROM rows').pluck().get(), 1600);
  reopened.close();
});

test('a thread that cannot checkpoint hands checkpoints back to the store’s connection', async () => {
  const file = databaseFile();
  const brokenDriver = join(mkdtempSync(join(tmpdir(), 'gantry-driver-')), 'driver.cjs');
  writeFileSync(brokenDriver, "throw new Error('no SQLite here');\n");
  const { db, checkpointer, errors, index } = await writeSteadily(file, { checkpointPages: 20, driver: brokenDriver }, 60, 4);
  await sleep(300);
  assert.match(errors[0]?.message ?? '', /no SQLite here/);
  assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 20);
  await checkpointer.close(() => db.close());
  index.release();
});

test('a log whose index cannot be read is checkpointed by the store’s connection again', async () => {
  const file = databaseFile();
  const db = openWal(file);
  const errors: Error[] = [];
  const checkpointer = new WalCheckpointer(db, (error) => errors.push(error), { checkpointPages: 20 });
  const group = new GroupCommit(db, () => checkpointer.committed());
  rmSync(`${file}-shm`); // SQLite keeps its mapping; the path is gone
  await group.run(async () => db.prepare('INSERT INTO rows (body) VALUES (?)').run(ROW));
  await sleep(300);
  assert.equal((errors[0] as NodeJS.ErrnoException | undefined)?.code, 'ENOENT');
  assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 20);
  await checkpointer.close(() => db.close());
});

test('a store closed after its thread has checkpointed leaves no log behind', async () => {
  const file = databaseFile();
  const store = new SqliteStore(file);
  const queue = aQueue();
  // About 1,500 pages of jobs: past the first checkpoint, so the thread is running at close.
  for (let round = 0; round < 30; round++) {
    await Promise.all(Array.from({ length: 50 }, () => store.jobs.insert(aJob(queue, { input: JSON.stringify({ blob: ROW }) }))));
    await sleep(5);
  }
  await sleep(200);
  assert.ok(statSync(file).size > 500 * PAGE_BYTES, 'the thread copied the log into the database file');
  await store.close();
  assert.equal(existsSync(`${file}-wal`), false);
  const reopened = new SqliteStore(file);
  assert.equal((await reopened.jobs.counts(queue)).inQueue, 1500);
  await reopened.close();
});

test('a reader that holds the log back delays its restart; once it ends, the log starts over', async () => {
  const file = databaseFile();
  const reader = openWal(file);
  const db = openWal(file);
  const checkpointer = new WalCheckpointer(db, (error) => assert.fail(error), { checkpointPages: 20, restartFrames: 300 });
  const group = new GroupCommit(db, () => checkpointer.committed());
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const index = new WalIndex(file);
  /** Whether the log started over (got shorter) while the batches were written. */
  const writeBatches = async (batches: number) => {
    let startedOver = false;
    let previous = index.frames().inLog;
    for (let b = 0; b < batches; b++) {
      await group.run(async () => {
        for (let i = 0; i < 4; i++) insert.run(ROW);
      });
      const now = index.frames().inLog;
      if (now < previous) startedOver = true;
      previous = now;
      await sleep(2);
    }
    return startedOver;
  };
  // A read transaction in another connection pins the log: no checkpoint may pass its snapshot.
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM rows').get();
  assert.equal(await writeBatches(150), false);
  assert.ok(index.frames().inLog > 300, `the pinned log holds ${index.frames().inLog} frames`);
  reader.exec('COMMIT');
  await sleep(1100); // past the pause after a restart that found the reader
  assert.equal(await writeBatches(150), true, 'the log started over once the reader had ended');
  await checkpointer.close(() => db.close());
  reader.close();
  index.release();
});

test('another process cannot checkpoint a running store’s log from under its reads', async (t) => {
  const file = databaseFile();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures/sqlite/store-beside-another-process.ts'), file],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  t.after(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  assert.equal((await lines.next()).value, 'read 50');
  assert.equal((await lines.next()).value, 'ready');
  // As a command run beside a server might: open the database, checkpoint and truncate its log, close.
  const visitor = new Database(file);
  const [checkpoint] = visitor.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  visitor.close();
  // The store's process holds the log with its locks: the checkpoint stops short of its reader,
  // which had it dropped those locks would have seen the log emptied under its transaction.
  assert.equal(checkpoint!.busy, 1, 'the checkpoint could not pass the running reader');
  child.stdin.write('go\n');
  assert.equal((await lines.next()).value, 'read 50', 'the read transaction still sees its snapshot');
  assert.equal((await lines.next()).value, 'queued 100');
  const [code, signal] = await once(child, 'exit');
  assert.deepEqual({ code, signal }, { code: 0, signal: null });
});
