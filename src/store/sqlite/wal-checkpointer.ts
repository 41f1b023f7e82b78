// Checkpoints off the event loop. SQLite copies its write-ahead log back into the database file
// inside whichever commit takes the log past 1,000 pages: a pause of several milliseconds every few
// dozen commits on a busy queue, which was most of the dispatch p99. Here the store's connection
// never checkpoints; a worker thread with its own connection does, once as many pages wait as
// SQLite's own trigger allows. Those checkpoints are PASSIVE (they never block a writer), so under
// steady writes they never catch up with the end of the log and the log would only grow; once it
// passes RESTART_FRAMES the thread checkpoints in RESTART mode, which makes writers wait (the store
// waits for the lock asynchronously, see group-commit.ts) until the log starts over.
// See docs/decisions/0026-sqlite-checkpoints-off-the-event-loop.md.
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { WalIndex } from './wal-index.js';

/** How often, at most, the log is looked at while commits go on. */
const LOOK_EVERY_MS = 100;
/** SQLite's own wal_autocheckpoint default: pages waiting in the log before a checkpoint runs. */
const CHECKPOINT_PAGES = 1000;
/** The log's length (4 KiB pages) past which it is made to start over: 32 MiB. */
const RESTART_FRAMES = 8192;
/**
 * How long a restart waits for readers, holding writers back meanwhile, before it gives up; and
 * how long before the next one is tried, so a long reader (another process's) cannot keep this
 * store's writers waiting again and again.
 */
const RESTART_WAIT_MS = 20;
const RESTART_BACKOFF_MS = 1000;

type Mode = 'PASSIVE' | 'RESTART';

export interface CheckpointLimits {
  /** Pages waiting in the log before a checkpoint runs. */
  checkpointPages: number;
  /** The log's length in pages past which it is made to start over. */
  restartFrames: number;
  /** The better-sqlite3 module the thread loads (resolved from here by default). */
  driver: string;
}

// The thread's code is plain CommonJS run with `eval`, so it loads the same way built or under a
// TypeScript loader (threads do not inherit the main thread's module hooks).
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const checkpoints = {
  PASSIVE: db.prepare('PRAGMA wal_checkpoint(PASSIVE)'),
  RESTART: db.prepare('PRAGMA wal_checkpoint(RESTART)'),
};
parentPort.on('message', (request) => {
  if (request === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  let finished;
  try {
    // The row's first column is 1 when the checkpoint could not do all it was asked.
    finished = checkpoints[request].get().busy === 0;
  } catch (error) {
    if (error.code !== 'SQLITE_BUSY') throw error;
    finished = false;
  }
  parentPort.postMessage(finished ? 'done' : 'busy');
});
`;

export class WalCheckpointer {
  private readonly index: WalIndex;
  private worker: Worker | undefined;
  private lookTimer: NodeJS.Timeout | undefined;
  private checkpointing = false;
  private noRestartBefore = 0;
  private failed = false;
  private closed = false;

  private readonly limits: CheckpointLimits;

  constructor(
    private readonly db: Database.Database,
    private readonly onError: (error: Error) => void,
    limits: Partial<CheckpointLimits> = {},
  ) {
    this.limits = {
      checkpointPages: CHECKPOINT_PAGES,
      restartFrames: RESTART_FRAMES,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      ...limits,
    };
    this.index = new WalIndex(db.name);
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Called after each commit: the log is looked at within LOOK_EVERY_MS. */
  committed(): void {
    if (this.lookTimer || this.failed || this.closed) return;
    this.lookTimer = setTimeout(() => this.look(), LOOK_EVERY_MS);
    this.lookTimer.unref();
  }

  /**
   * Stops the thread (after a checkpoint it has begun), then closes the store's connection with
   * `closeConnection`, then lets go of the WAL-index: the connection closes after the thread's, and
   * no lock of the process is dropped while it is open (see wal-index.ts).
   */
  async close(closeConnection: () => void): Promise<void> {
    this.closed = true;
    clearTimeout(this.lookTimer);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // until it has exited: awaiting an unreferenced thread would not keep the process up
      worker.postMessage('close');
      await exited;
    }
    closeConnection();
    this.index.release();
  }

  private look(): void {
    this.lookTimer = undefined;
    if (this.checkpointing || this.failed || this.closed) return;
    let frames: ReturnType<WalIndex['frames']>;
    try {
      frames = this.index.frames();
    } catch (error) {
      // Without the index there is no telling when to checkpoint: SQLite's own trigger does it.
      this.fail(error as Error);
      return;
    }
    const { checkpointPages, restartFrames } = this.limits;
    const restart = frames.inLog >= restartFrames && Date.now() >= this.noRestartBefore;
    if (!restart && frames.waiting < checkpointPages) return;
    this.worker ??= this.startWorker();
    this.checkpointing = true;
    this.worker.postMessage((restart ? 'RESTART' : 'PASSIVE') satisfies Mode);
  }

  private startWorker(): Worker {
    const workerData = { driver: this.limits.driver, file: this.db.name, busyTimeoutMs: RESTART_WAIT_MS };
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData });
    worker.unref();
    worker.on('message', (outcome: 'done' | 'busy') => {
      this.checkpointing = false;
      if (outcome === 'busy') this.noRestartBefore = Date.now() + RESTART_BACKOFF_MS;
    });
    worker.on('error', (error) => this.fail(error));
    return worker;
  }

  /** A thread that cannot checkpoint (or a log that cannot be looked at) hands checkpoints back to SQLite's own trigger on this connection. */
  private fail(error: Error): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.worker?.postMessage('close'); // if it still runs
    this.worker = undefined;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${this.limits.checkpointPages}`);
    this.onError(error);
  }
}
