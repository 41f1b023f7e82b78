// How many pages wait in a database's write-ahead log, read from its WAL-index header as SQLite's
// "WAL-mode file format" documents it: mxFrame (the last valid frame) at byte 16 and nBackfill
// (frames already copied into the database file) at byte 96, in native byte order.
//
// The index file is read through one descriptor per file that stays open while any store of this
// process uses it. Closing a descriptor drops every POSIX lock the process holds on that file,
// SQLite's own included: once they were gone, another process opening the database took it for
// unused and truncated the index under this process's mapping (SIGBUS), and another process's
// checkpoints no longer saw this process's readers.
// See docs/decisions/0037-wal-index-read-through-a-held-descriptor.md.
import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import { endianness } from 'node:os';

const MAX_FRAME_OFFSET = 16;
const BACKFILLED_OFFSET = 96;
const HEADER_BYTES = 100;

/** Open index descriptors of this process by the index file's real path, with how many readers share each. */
const held = new Map<string, { fd: number; readers: number }>();

export class WalIndex {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly littleEndian = endianness() === 'LE';
  private path: string | undefined;
  private fd: number | undefined;

  constructor(private readonly databaseFile: string) {}

  /** Frames in the log, and those not yet copied into the database file. Throws if the index cannot be read. */
  frames(): { inLog: number; waiting: number } {
    if (readSync(this.descriptor(), this.header, 0, HEADER_BYTES, 0) < HEADER_BYTES)
      throw new Error(`${this.databaseFile}-shm is shorter than its header`);
    const inLog = this.read(MAX_FRAME_OFFSET);
    return { inLog, waiting: Math.max(0, inLog - this.read(BACKFILLED_OFFSET)) };
  }

  /**
   * Lets go of the descriptor. Call it only once this reader's connections to the database are
   * closed: the last reader of the process closes the descriptor, which drops the process's locks.
   */
  release(): void {
    if (this.path === undefined) return;
    const shared = held.get(this.path)!;
    shared.readers -= 1;
    if (shared.readers === 0) {
      held.delete(this.path);
      closeSync(shared.fd);
    }
    this.path = undefined;
    this.fd = undefined;
  }

  private descriptor(): number {
    if (this.fd !== undefined) return this.fd;
    // The index exists once a connection has opened the database in WAL mode; realpath opens nothing.
    const path = realpathSync(`${this.databaseFile}-shm`);
    let shared = held.get(path);
    if (!shared) {
      shared = { fd: openSync(path, 'r'), readers: 0 };
      held.set(path, shared);
    }
    shared.readers += 1;
    this.path = path;
    this.fd = shared.fd;
    return shared.fd;
  }

  private read(offset: number): number {
    return this.littleEndian ? this.header.readUInt32LE(offset) : this.header.readUInt32BE(offset);
  }
}
