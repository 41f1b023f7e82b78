// Reads of an endpoint's whole history off the event loop. The health counts, a job list filtered
// to a rare status and a chart's window can each read every job the endpoint retains: tens to
// hundreds of milliseconds at a million jobs, during which every other request on the store's
// connection would wait. Here a worker thread with a connection of its own runs them (WAL lets it
// read while the store writes). A store in memory has no file to share, and a thread that fails
// is not started again: both read on the store's connection instead.
// See docs/decisions/0030-sqlite-history-reads-off-the-event-loop.md.
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { GroupCommit } from './group-commit.js';

export interface HistoryStatement {
  sql: string;
  params: readonly unknown[];
  /**
   * The rows as one Float64Array of their values, row after row (NULL as NaN), for statements of
   * numeric columns only: it crosses to the event loop's thread without being copied or parsed,
   * where tens of thousands of row objects held the loop for milliseconds.
   */
  packed?: boolean;
}

/** A statement's answer: its rows, or for a packed statement their values. */
export type HistoryRows = unknown[] | Float64Array;

interface Request {
  statements: readonly HistoryStatement[];
  resolve(rows: HistoryRows[]): void;
  reject(error: Error): void;
}

type Reply = { id: number; rows: HistoryRows[] } | { id: number; error: { message: string; code?: string } };

/**
 * Rows of numbers (or NULL) as one array of their values. The thread runs this same function from
 * its source text, so it must use nothing from outside itself (no import, no closure).
 */
function packRows(rows: (number | null)[][]): Float64Array {
  const values = new Float64Array(rows.length === 0 ? 0 : rows.length * rows[0]!.length);
  let at = 0;
  for (const row of rows) for (const value of row) values[at++] = value === null ? NaN : value;
  return values;
}

// Plain CommonJS run with `eval`, so it loads the same way built or under a TypeScript loader.
// query_only: the thread can never write, whatever it is sent.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');
const prepared = new Map();
const statement = (sql) => {
  let s = prepared.get(sql);
  if (!s) prepared.set(sql, (s = db.prepare(sql)));
  return s;
};
${packRows.toString()}
// One read transaction: every statement of a request sees the same snapshot.
const readAll = db.transaction((statements) =>
  statements.map(({ sql, params, packed }) => (packed ? packRows(statement(sql).raw(true).all(...params)) : statement(sql).raw(false).all(...params))),
);
parentPort.on('message', (request) => {
  if (request === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const rows = readAll(request.statements);
    parentPort.postMessage({ id: request.id, rows }, rows.filter((r) => r instanceof Float64Array).map((r) => r.buffer));
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: { message: error.message, code: error.code } });
  }
});
`;

export class HistoryReader {
  private worker: Worker | undefined;
  private failed: boolean;
  private nextId = 0;
  private readonly pending = new Map<number, Request>();
  private readonly prepared = new Map<string, Database.Statement>();
  private readonly readHere: (statements: readonly HistoryStatement[]) => HistoryRows[];

  constructor(
    private readonly db: Database.Database,
    private readonly group: GroupCommit,
    private readonly onError: (error: Error) => void,
    private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  ) {
    this.failed = db.memory;
    this.readHere = db.transaction((statements: readonly HistoryStatement[]) =>
      statements.map(({ sql, params, packed }) => {
        const statement = this.statement(sql);
        return packed ? packRows(statement.raw(true).all(...params) as (number | null)[][]) : statement.raw(false).all(...params);
      }),
    );
  }

  /** The rows of each statement, all read from one snapshot that holds every group committed before the call. */
  read(statements: readonly HistoryStatement[]): Promise<HistoryRows[]> {
    if (this.failed) return this.readOnStore(statements);
    // The thread sees committed data only: wait for the group open now, as a read inside it would.
    return this.group.settled().then(
      () =>
        new Promise((resolve, reject) => {
          if (this.failed) return resolve(this.readOnStore(statements));
          const id = this.nextId++;
          this.pending.set(id, { statements, resolve, reject });
          const worker = (this.worker ??= this.startWorker());
          if (this.pending.size === 1) worker.ref(); // an answer awaited keeps the process up
          worker.postMessage({ id, statements });
        }),
    );
  }

  /** Stops the thread once it has answered what it was asked, before the store's connection closes. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  /** Reads on the store's connection, inside the open group if there is one (as its other reads do). */
  private readOnStore(statements: readonly HistoryStatement[]): Promise<HistoryRows[]> {
    return this.group.read(async () => this.readHere(statements));
  }

  private statement(sql: string): Database.Statement {
    let statement = this.prepared.get(sql);
    if (!statement) this.prepared.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  private startWorker(): Worker {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { driver: this.driver, file: this.db.name } });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const request = this.pending.get(reply.id);
      if (!request) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('rows' in reply) request.resolve(reply.rows);
      else request.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.fail(new Error('the history reader thread exited'));
    });
    return worker;
  }

  /** Reads go back to the store's connection for good; what the thread still owed is read there. */
  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.worker = undefined;
    const owed = [...this.pending.values()];
    this.pending.clear();
    for (const request of owed) this.readOnStore(request.statements).then(request.resolve, request.reject);
    this.onError(error);
  }
}
