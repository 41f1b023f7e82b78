// The public shapes of the worker SDK.

export interface WorkerJob {
  id: string;
  input: unknown;
  /** Where the client asked outputs to be uploaded, when it did. */
  s3Config?: unknown;
  /** Aborted when the job is cancelled, times out or expires: stop work and return. */
  signal: AbortSignal;
  /** Reports a progress update; clients see it as the job's output while it runs. */
  progress(update: unknown): Promise<void>;
}

/**
 * Returns the output (or a promise of it), throws to fail the job, returns `{error}` to fail it
 * too, or returns an async iterable (e.g. an async generator) to stream chunks.
 */
export type Handler = (job: WorkerJob) => unknown | Promise<unknown> | AsyncIterable<unknown>;

export interface ServeOptions {
  /** Jobs run at once (default 1). */
  concurrency?: number;
  /** For streaming handlers: the final output is the array of every chunk (otherwise none). */
  returnAggregateStream?: boolean;
  /** Where the RUNPOD_* variables are read (default process.env). */
  env?: Record<string, string | undefined>;
  /** Stop taking jobs, let running ones finish, then resolve. */
  signal?: AbortSignal;
  /** Local mode: run the handler once with this job input, print the result, and resolve. */
  testInput?: unknown;
  /** Where the worker reports trouble (failed takes, lost results); default stderr. */
  log?: (line: string) => void;
}
