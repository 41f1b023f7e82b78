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
   * The reducer (given to the reader) that turns the rows, as arrays of values, into the answer,
   * with its argument: what the event loop needs of tens of thousands of rows may be a few values,
   * and only those then cross to its thread.
   */
  reduce?: { name: string; arg: unknown };
}

/**
 * A function of a statement's rows. The thread runs it from its source text, so it must use
 * nothing from outside itself (no import, no closure).
 */
export type RowReducer = (rows: never, arg: never) => unknown;

interface Request {
  statements: readonly HistoryStatement[];
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

type Reply = { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: string } };

// Plain CommonJS run with `eval`, so it loads the same way built or under a TypeScript loader.
// query_only: the thread can never write, whatever it is sent. \`__name\`: the helper a
// TypeScript loader that keeps functions' names calls in the reducers' source.
const threadSource = (reducers: Record<string, RowReducer>) => `
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
const __name = (fn) => fn;
const reducers = { ${Object.entries(reducers)
  .map(([name, reducer]) => `${JSON.stringify(name)}: ${reducer.toString()}`)
  .join(',\n')} };
// One read transaction: every statement of a request sees the same snapshot.
const readAll = db.transaction((statements) =>
  statements.map(({ sql, params, reduce }) =>
    reduce ? reducers[reduce.name](statement(sql).raw(true).all(...params), reduce.arg) : statement(sql).raw(false).all(...params),
  ),
);
parentPort.on('message', (request) => {
  if (request === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: request.id, rows: readAll(request.statements) });
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
  private readonly readHere: (statements: readonly HistoryStatement[]) => unknown[];

  constructor(
    private readonly db: Database.Database,
    private readonly group: GroupCommit,
    private readonly onError: (error: Error) => void,
    private readonly reducers: Record<string, RowReducer> = {},
    private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  ) {
    this.failed = db.memory;
    this.readHere = db.transaction((statements: readonly HistoryStatement[]) =>
      statements.map(({ sql, params, reduce }) => {
        const statement = this.statement(sql);
        if (!reduce) return statement.raw(false).all(...params);
        return this.reducers[reduce.name]!(statement.raw(true).all(...params) as never, reduce.arg as never);
      }),
    );
  }

  /**
   * The rows of each statement (or what its reducer made of them), all read from one snapshot that
   * holds every group committed before the call.
   */
  read(statements: readonly HistoryStatement[]): Promise<unknown[]> {
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
  private readOnStore(statements: readonly HistoryStatement[]): Promise<unknown[]> {
    return this.group.read(async () => this.readHere(statements));
  }

  private statement(sql: string): Database.Statement {
    let statement = this.prepared.get(sql);
    if (!statement) this.prepared.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  private startWorker(): Worker {
    const worker = new Worker(threadSource(this.reducers), { eval: true, workerData: { driver: this.driver, file: this.db.name } });
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
