// Group commit: every store call made in one event-loop turn and the next runs in one IMMEDIATE
// transaction, committed once the I/O callbacks of both turns are done (a second setImmediate).
// A call resolves only after that commit, so nothing is acknowledged before it is in the database
// (durability and the synchronous setting are unchanged). One commit per two turns instead of one
// per statement is most of what a busy queue spends in SQLite. See docs/decisions/0015-sqlite-group-commit.md.
import type Database from 'better-sqlite3';

/** As long as a call waits for the write lock held by another connection before failing (busy_timeout before). */
const LOCK_WAIT_MS = 5000;

interface Group {
  committed: Promise<void>;
  /** The connection's total_changes() when the group opened. */
  changesAtOpen: number;
  settle(error?: unknown): void;
}

export class GroupCommit {
  private group: Group | undefined;
  /** Groups whose commit failed (rolled back whole), for marks that must never go back to a value seen. */
  private failed = 0;
  /** Calls waiting for the write lock another connection holds, in arrival order. */
  private readonly waiting: (() => void)[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly changes: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly afterCommit: () => void = () => undefined,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.changes = db.prepare('SELECT total_changes()').pluck();
    // Waiting for another connection's lock happens here, asynchronously, not inside SQLite.
    db.pragma('busy_timeout = 0');
  }

  /**
   * Runs `work` that only reads: inside the current group when one is open (it may read what the
   * group wrote, so it answers after the commit), else on its own at once. Opening a group for it
   * would take the write lock and commit an empty transaction for nothing.
   */
  read<T>(work: () => Promise<T>): Promise<T> {
    return this.group ? this.run(work) : work();
  }

  /** Resolves once the group open now, if any, has ended (committed or rolled back), for reads made elsewhere. */
  settled(): Promise<void> {
    return this.group ? this.group.committed.catch(() => undefined) : Promise.resolve();
  }

  /** Runs `work` inside the current group (opening one if needed); resolves once the group is committed. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.group && !this.tryOpen()) await this.lockFreed(Date.now() + LOCK_WAIT_MS);
    const group = this.group!;
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await (this.group ?? group).committed;
      throw error;
    }
    // Nothing written in the group yet: all the work read was committed before, answer at once.
    if (this.group === group && this.changes.get() === group.changesAtOpen) return result;
    // The work may have moved on to a later group (it awaited across turns): wait for that one.
    await (this.group ?? group).committed;
    return result;
  }

  get failedGroups(): number {
    return this.failed;
  }

  /** Commits what is pending now (before the database is closed). */
  flush(): void {
    this.finish();
  }

  private tryOpen(): boolean {
    try {
      this.begin.run();
    } catch (error) {
      if (isBusy(error)) return false;
      throw error;
    }
    let settle!: (error?: unknown) => void;
    const committed = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error as Error));
    });
    // Its callers see a failed commit; nobody else has to.
    committed.catch(() => undefined);
    this.group = { committed, settle, changesAtOpen: this.changes.get() as number };
    // The next turn's requests join too: on a busy server they share the pages this group already
    // wrote (bench:queue: 11.8 writes per job became 9.6); an idle loop passes that turn without waiting.
    setImmediate(() => setImmediate(() => this.finish()));
    return true;
  }

  private finish(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    try {
      if (!this.db.inTransaction) throw new Error('the database rolled the transaction back; nothing of it was stored');
      this.commit.run();
      group.settle();
    } catch (error) {
      this.failed++;
      if (this.db.open && this.db.inTransaction) this.rollback.run();
      group.settle(error);
      this.wakeWaiting();
      return;
    }
    // Outside the try: whatever it does, the group is committed and was answered so.
    this.afterCommit();
    this.wakeWaiting();
  }

  /** Resolves once this call has opened a group (or joined one opened meanwhile). */
  private lockFreed(deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        if (this.group) return resolve();
        try {
          if (this.tryOpen()) return resolve();
        } catch (error) {
          return reject(error as Error);
        }
        if (Date.now() >= deadline) return reject(busyError());
        this.waiting.push(attempt);
        this.scheduleRetry();
      };
      attempt();
    });
  }

  private scheduleRetry(): void {
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = undefined;
      this.wakeWaiting();
    }, 2);
  }

  private wakeWaiting(): void {
    for (const attempt of this.waiting.splice(0)) attempt();
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function busyError(): Error {
  return Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}

/**
 * Routes every async method of `target` through the group, so whatever a store call writes is
 * committed before the call resolves. Synchronous methods (run inside other calls' transactions)
 * and those named in `keep` are left as they are; those named in `reads` must only read (a write
 * of theirs outside a group would commit statement by statement) and join a group only when one is open.
 */
export function groupMethods(target: object, group: GroupCommit, keep: readonly string[] = [], reads: readonly string[] = []): void {
  const proto = Object.getPrototypeOf(target) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const method = proto[name];
    if (keep.includes(name) || typeof method !== 'function' || method.constructor.name !== 'AsyncFunction') continue;
    const fn = method as (...args: unknown[]) => Promise<unknown>;
    const value = reads.includes(name)
      ? (...args: unknown[]) => group.read(() => fn.apply(target, args))
      : (...args: unknown[]) => group.run(() => fn.apply(target, args));
    Object.defineProperty(target, name, { value, configurable: true, writable: true });
  }
}
