// What every provider keeps per worker besides the worker itself: its log (kept a while after it
// is gone, so a crash can be explained) and the listeners told once of each exit.
import type { LogLine, WorkerExit } from './provider.js';
import { LogBuffer } from './log-buffer.js';

/** Logs of workers that are gone are kept a while, so a crash can be explained. */
const KEEP_GONE_LOGS_MS = 15 * 60_000;

export class WorkerOutputs {
  private readonly buffers = new Map<string, LogBuffer>();
  private readonly exitListeners = new Set<(exit: WorkerExit) => void>();

  constructor(private readonly linesKept = 1000) {}

  /** A fresh log for a worker being started. */
  open(workerId: string): LogBuffer {
    const logs = new LogBuffer(this.linesKept);
    this.buffers.set(workerId, logs);
    return logs;
  }

  /** Writes a line of the provider's own to a worker's log, if it has one. */
  system(workerId: string, line: string): void {
    this.buffers.get(workerId)?.system(line);
  }

  /** Tells every listener of the exit and forgets the log once it has been kept long enough. */
  exited(exit: WorkerExit): void {
    for (const listener of this.exitListeners) listener(exit);
    setTimeout(() => this.buffers.delete(exit.workerId), KEEP_GONE_LOGS_MS).unref();
  }

  onExit(listener: (exit: WorkerExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  tail(workerId: string, lines: number): LogLine[] {
    return this.buffers.get(workerId)?.tail(lines) ?? [];
  }

  follow(workerId: string, listener: (line: LogLine) => void): () => void {
    return this.buffers.get(workerId)?.follow(listener) ?? (() => undefined);
  }
}
