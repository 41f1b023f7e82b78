// A job store on a fresh SQLite file, and what the tests of its large inputs and outputs share:
// a job to submit, a megabyte of JSON text, and the WAL's growth as a measure of what was written.
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-file.js';
import { SqliteJobStore } from '../../src/store/sqlite/sqlite-job-store.js';
import { SqliteSubmitKeys } from '../../src/store/sqlite/sqlite-submit-keys.js';
import { SqliteJobHistory } from '../../src/store/sqlite/sqlite-job-history.js';
import { HistoryReader } from '../../src/store/sqlite/history-reader.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import type { NewJob } from '../../src/store/job-store.js';

/** A megabyte of JSON text in half as many characters, so a count of characters cannot pass for bytes. */
export const MB_JSON = JSON.stringify({ image: 'é'.repeat(512 * 1024) });

export interface SqliteJobs {
  db: Database.Database;
  jobs: SqliteJobStore;
  history: SqliteJobHistory;
  /** A measure of the bytes written to the WAL from now on (nothing checkpoints this database). */
  walGrowth: () => () => number;
}

export function openSqliteJobs(): SqliteJobs {
  const file = join(mkdtempSync(join(tmpdir(), 'gantry-jobs-')), 'gantry.db');
  const db = openSqliteDatabase(file);
  // The WAL only grows while nothing checkpoints it: its growth is what each step wrote.
  db.pragma('wal_autocheckpoint = 0');
  const reader = new HistoryReader(db, new GroupCommit(db), (error) => assert.fail(error));
  const walBytes = () => statSync(`${file}-wal`).size;
  const walGrowth = () => {
    const before = walBytes();
    return () => walBytes() - before;
  };
  return { db, jobs: new SqliteJobStore(db, reader, new SqliteSubmitKeys(db)), history: new SqliteJobHistory(db, reader), walGrowth };
}

/** A queued job of endpoint-1 (unless `fields` say otherwise) with a small input. */
export function aNewJob(id: string, fields: Partial<NewJob> = {}): NewJob {
  return {
    id,
    endpointId: 'endpoint-1',
    accountId: 'account-1',
    input: '{"prompt":"draw"}',
    webhook: null,
    s3Config: null,
    executionTimeoutMs: 60_000,
    lowPriority: false,
    retentionMs: 60_000,
    ttlMs: 600_000,
    submittedAt: 1_000,
    expiresAt: 900_000,
    ...fields,
  };
}
