// The writes of inputs, outputs and errors too large for their job's row (decisions 35 and 36):
// each goes into job_inputs, job_outputs or job_errors in the same savepoint as the row that holds
// '' in its place, so neither is ever stored without the other. Reads find them through
// job-columns.ts.
import type Database from 'better-sqlite3';
import { completedSeq, keptApart } from './job-columns.js';

/** Writes a completion's row with the output and error given (each '' when kept apart); returns COMPLETED_COLUMNS. */
export type CompleteRow = (output: string | null, error: string | null) => unknown[] | undefined;

export class SqliteKeptApart {
  /** Inserts a job's row (holding '' as its input), then its input. */
  readonly insert: (insertRow: () => Database.RunResult, input: string) => void;
  private readonly completeApart: (
    completeRow: CompleteRow,
    output: string | null,
    error: string | null,
    outputApart: boolean,
    errorApart: boolean,
  ) => unknown[] | undefined;
  private readonly deleteResult: Database.Statement[];

  constructor(db: Database.Database) {
    const insertInput = db.prepare('INSERT INTO job_inputs (seq, input) VALUES (?, ?)');
    // Replace what an earlier result left, should a row have outlived its job's requeue.
    const putOutput = db.prepare('INSERT OR REPLACE INTO job_outputs (seq, output) VALUES (?, ?)');
    const putError = db.prepare('INSERT OR REPLACE INTO job_errors (seq, error) VALUES (?, ?)');
    this.deleteResult = ['job_outputs', 'job_errors'].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE seq = (SELECT seq FROM jobs WHERE id = ?)`),
    );
    this.insert = db.transaction((insertRow: () => Database.RunResult, input: string) => {
      insertInput.run(insertRow().lastInsertRowid, input);
    });
    this.completeApart = db.transaction(
      (completeRow: CompleteRow, output: string | null, error: string | null, outputApart: boolean, errorApart: boolean) => {
        const values = completeRow(outputApart ? '' : output, errorApart ? '' : error);
        if (!values) return undefined;
        const seq = completedSeq(values);
        if (outputApart) putOutput.run(seq, output);
        if (errorApart) putError.run(seq, error);
        return values;
      },
    );
  }

  /**
   * Completes a job's row with this output and error, keeping either apart when it is too large
   * for the row (one savepoint then holds the row and what is kept apart). A completion that
   * matched no row stores nothing.
   */
  complete(completeRow: CompleteRow, output: string | null, error: string | null): unknown[] | undefined {
    const outputApart = output !== null && keptApart(output);
    const errorApart = error !== null && keptApart(error);
    if (!outputApart && !errorApart) return completeRow(output, error);
    return this.completeApart(completeRow, output, error, outputApart, errorApart);
  }

  /** Deletes a job's kept output and error, if it has them (a retried job's result is gone). */
  dropResult(id: string): void {
    for (const statement of this.deleteResult) statement.run(id);
  }
}
