// One server per embedded store (decision 46). A server keeps part of the queue's state in its
// memory (waiting workers, hand-offs, rate-limit windows) and runs the endpoints' worker processes,
// so a second server on the same file would run every endpoint's workers twice and miss the
// other's hand-offs. The server holds an exclusive SQLite lock on a small file beside the database
// for as long as it runs; the operating system drops it when the process ends, however it ends, so
// a crash leaves nothing to clean up. The CLI's commands open the database beside a server freely.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { preparePrivateDatabaseFile } from './private-files.js';
import { SchemaError, StoreInUseError } from '../shared/refusals.js';
import { migrationFileName, type Migration } from '../shared/migrations.js';

/**
 * How long taking or probing the lock waits for it. A probe (`gantry doctor`, a command with
 * migrations pending) holds it for a moment; without a wait, a server starting in that moment was
 * refused as if another served the file. A server holds it for good: past this wait, it is one.
 */
const LOCK_WAIT_MS = 500;

export class ServerLock {
  private constructor(
    private readonly db: Database.Database,
    private readonly holderFile: string,
  ) {}

  /** Takes the lock for the database `file`, or throws StoreInUseError naming the server that holds it. */
  static take(file: string): ServerLock {
    preparePrivateDatabaseFile(lockFile(file));
    const db = lock(file);
    if (!db)
      throw new StoreInUseError(`another ${holderName(file)} is serving ${file}: stop it first, or give this one another --data-dir`);
    writeFileSync(holderFile(file), `${process.pid}\n`, { mode: 0o600 });
    return new ServerLock(db, holderFile(file));
  }

  /**
   * "Gantry server (pid N)" while a server holds the lock for `file`, else undefined. Never held in
   * the process that holds it: ask before taking it.
   */
  static heldBy(file: string): string | undefined {
    if (!existsSync(lockFile(file))) return undefined;
    const db = lock(file);
    db?.close();
    return db ? undefined : holderName(file);
  }

  release(): void {
    rmSync(this.holderFile, { force: true });
    this.db.close();
  }
}

/**
 * For migrateSqlite from a command beside the server: a server still serving the file runs an
 * older Gantry (its own start would have applied these), which the migrations may break.
 */
export function refuseBesideServer(file: string): (pending: Migration[]) => void {
  return (pending) => {
    const holder = ServerLock.heldBy(file);
    if (holder === undefined) return;
    const first = pending[0]!;
    throw new SchemaError(
      `the ${holder} serving ${file} runs an older Gantry: its schema lacks migration ${migrationFileName(first)}` +
        `${pending.length > 1 ? ` and ${pending.length - 1} more` : ''}. Stop it, then start this Gantry's server, which applies them`,
    );
  };
}

const lockFile = (file: string) => `${file}-server-lock`;
const holderFile = (file: string) => `${file}-server-lock.pid`;

/** "Gantry server (pid N)", from the file the holder wrote, or without its pid when it cannot be read. */
function holderName(file: string): string {
  try {
    const pid = Number(readFileSync(holderFile(file), 'utf8').trim());
    if (Number.isSafeInteger(pid) && pid > 0) return `Gantry server (pid ${pid})`;
  } catch {
    // Not written yet, or removed as the holder stopped.
  }
  return 'Gantry server';
}

/** The lock file's connection holding its exclusive lock, or undefined when another holds it. */
function lock(file: string): Database.Database | undefined {
  const db = new Database(lockFile(file), { timeout: LOCK_WAIT_MS });
  try {
    // Nothing is ever written to it: no journal file beside it either.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // In exclusive locking mode the lock a write transaction takes is kept until the connection closes.
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw error;
  }
}
