// The writes of inputs and outputs too large for their job's row (decisions 35 and 36): each goes
// into job_inputs or job_outputs in the same savepoint as the row that holds '' in its place, so
// neither is ever stored without the other. Reads find them through job-columns.ts.
import type Database from 'better-sqlite3';
import { completedSeq } from './job-columns.js';

export class SqliteKeptApart {
  /** Inserts a job's row (holding '' as its input), then its input. */
  readonly insert: (insertRow: () => Database.RunResult, input: string) => void;
  /**
   * Completes a job's row (holding '' as its output; it returns COMPLETED_COLUMNS), then stores the
   * output. A completion that matched no row stores nothing.
   */
  readonly complete: (completeRow: (output: string) => unknown[] | undefined, output: string) => unknown[] | undefined;
  private readonly deleteOutput: Database.Statement;

  constructor(db: Database.Database) {
    const insertInput = db.prepare('INSERT INTO job_inputs (seq, input) VALUES (?, ?)');
    // Replaces what an earlier result left, should a row have outlived its job's requeue.
    const putOutput = db.prepare('INSERT OR REPLACE INTO job_outputs (seq, output) VALUES (?, ?)');
    this.deleteOutput = db.prepare('DELETE FROM job_outputs WHERE seq = (SELECT seq FROM jobs WHERE id = ?)');
    this.insert = db.transaction((insertRow: () => Database.RunResult, input: string) => {
      insertInput.run(insertRow().lastInsertRowid, input);
    });
    this.complete = db.transaction((completeRow: (output: string) => unknown[] | undefined, output: string) => {
      const values = completeRow('');
      if (!values) return undefined;
      putOutput.run(completedSeq(values), output);
      return values;
    });
  }

  /** Deletes a job's kept output, if it has one (a retried job's result is gone). */
  dropOutput(id: string): void {
    this.deleteOutput.run(id);
  }
}
