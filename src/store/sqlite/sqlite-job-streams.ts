// A streaming job's chunks on SQLite: numbered by the job's `stream_written`, handed out once by
// `stream_read` (a read that never reached its client is put back), and deleted with their job.
import type Database from 'better-sqlite3';
import type { JobWriter, StreamRead } from '../job-store.js';
import { DEADLINE_SQL, TERMINAL_STATUS_LIST } from '../shared/job-sql.js';
import { purgedRow } from '../shared/queue-generation-sql.js';

export class SqliteJobStreams {
  private readonly unread: Database.Statement;
  private readonly deleteChunks: Database.Statement;
  /** Appends chunks after the last one, renewing the writer's lease; undefined when the job takes none. */
  readonly append: (id: string, outputs: string[], writer: JobWriter) => { workerId: string | null } | undefined;
  /** The chunks not handed out yet, marked as handed out. */
  readonly read: (id: string) => StreamRead;

  constructor(db: Database.Database) {
    const bumpWritten = db.prepare(`UPDATE jobs SET stream_written = stream_written + @n,
        lease_expires_at = CASE WHEN worker_id = @workerId AND status = 'IN_PROGRESS' THEN min(@leaseUntil, ${DEADLINE_SQL}) ELSE lease_expires_at END
      WHERE id = @id AND endpoint_id = @endpointId AND status NOT IN (${TERMINAL_STATUS_LIST}) AND NOT ${purgedRow()}
      RETURNING stream_written, worker_id`);
    const insertChunk = db.prepare('INSERT INTO job_stream (job_id, seq, output) VALUES (?, ?, ?)');
    const positions = db.prepare('SELECT stream_read, stream_written FROM jobs WHERE id = ?');
    const chunksAfter = db.prepare('SELECT output FROM job_stream WHERE job_id = ? AND seq > ? ORDER BY seq');
    const markRead = db.prepare('UPDATE jobs SET stream_read = ? WHERE id = ?');
    this.unread = db.prepare('UPDATE jobs SET stream_read = ? WHERE id = ? AND stream_read = ?');
    this.deleteChunks = db.prepare('DELETE FROM job_stream WHERE job_id = ?');
    // Transaction functions made once: better-sqlite3 builds four wrappers on every db.transaction() call.
    this.append = db.transaction((id: string, outputs: string[], writer: JobWriter) => {
      const row = bumpWritten.get({ n: outputs.length, id, ...writer }) as { stream_written: number; worker_id: string | null } | undefined;
      if (!row) return undefined;
      let seq = row.stream_written - outputs.length;
      for (const output of outputs) insertChunk.run(id, ++seq, output);
      return { workerId: row.worker_id };
    });
    this.read = db.transaction((id: string): StreamRead => {
      const row = positions.get(id) as { stream_read: number; stream_written: number } | undefined;
      const at = row?.stream_read ?? 0;
      if (!row || row.stream_read >= row.stream_written) return { chunks: [], from: at, through: at };
      const chunks = (chunksAfter.all(id, row.stream_read) as { output: string }[]).map((c) => c.output);
      markRead.run(row.stream_written, id);
      return { chunks, from: row.stream_read, through: row.stream_written };
    });
  }

  /** Puts back a read whose chunks never reached the client; false when a later read came meanwhile. */
  putBack(id: string, read: StreamRead): boolean {
    if (read.chunks.length === 0) return false;
    return this.unread.run(read.from, id, read.through).changes > 0;
  }

  /** Deletes the job's chunks (it is deleted or starts again). */
  clear(id: string): void {
    this.deleteChunks.run(id);
  }
}
