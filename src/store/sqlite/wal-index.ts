// How many pages wait in a database's write-ahead log, read from its WAL-index header as SQLite's
// "WAL-mode file format" documents it: mxFrame (the last valid frame) at byte 16 and nBackfill
// (frames already copied into the database file) at byte 96, in native byte order.
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

const MAX_FRAME_OFFSET = 16;
const BACKFILLED_OFFSET = 96;
const HEADER_BYTES = 100;

export class WalIndex {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly littleEndian = endianness() === 'LE';

  constructor(private readonly databaseFile: string) {}

  /** Frames in the log, and those not yet copied into the database file. Throws if the index cannot be read. */
  frames(): { inLog: number; waiting: number } {
    const fd = openSync(`${this.databaseFile}-shm`, 'r');
    try {
      if (readSync(fd, this.header, 0, HEADER_BYTES, 0) < HEADER_BYTES)
        throw new Error(`${this.databaseFile}-shm is shorter than its header`);
    } finally {
      closeSync(fd);
    }
    const inLog = this.read(MAX_FRAME_OFFSET);
    return { inLog, waiting: Math.max(0, inLog - this.read(BACKFILLED_OFFSET)) };
  }

  private read(offset: number): number {
    return this.littleEndian ? this.header.readUInt32LE(offset) : this.header.readUInt32BE(offset);
  }
}
