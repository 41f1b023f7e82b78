// Jobs from a JSON Lines file, cut into run-batch requests: at most as many jobs and bytes as one
// request may carry, each job remembered with its line so an error can name the line.
import { JOB_LIMITS } from '../../domain/job-state.js';
import { CliError, EXIT_USAGE } from '../options.js';
import { ApiError } from './api-client.js';
import { parseJson } from './json-input.js';
import { asRunBody } from './jobs-api.js';

export interface BatchJob {
  /** 1-based line of the file. */
  line: number;
  /** The request body of one job: {"input": ...} and whatever else the line held. */
  body: Record<string, unknown>;
  /** Its length as JSON text. */
  bytes: number;
}

/** Room left in a request for the `{"jobs":[...]}` around the jobs. */
const ENVELOPE_BYTES = 64;

/**
 * Each non-blank line is a job: its input, or a whole request holding `input` (as --input-file
 * takes). Every line is read before anything is sent, so a typo on the last line queues nothing.
 */
export function jobsFromLines(text: string, source: string): BatchJob[] {
  const jobs: BatchJob[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const value = parseJson(raw, `${source} line ${index + 1}`);
    const body = asRunBody(value);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    if (bytes + ENVELOPE_BYTES > JOB_LIMITS.runBodyBytes) {
      throw new CliError(`${source} line ${index + 1}: a job of ${bytes} bytes is larger than a request may be (10 MB)`, EXIT_USAGE);
    }
    jobs.push({ line: index + 1, body, bytes });
  });
  if (jobs.length === 0) throw new CliError(`${source} holds no jobs: give one job per line`, EXIT_USAGE);
  return jobs;
}

/** The jobs in order, cut into requests of at most runBatchMaxJobs jobs and runBodyBytes bytes. */
export function requestsOf(jobs: readonly BatchJob[], maxJobs: number = JOB_LIMITS.runBatchMaxJobs): BatchJob[][] {
  const requests: BatchJob[][] = [];
  let current: BatchJob[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const job of jobs) {
    // A comma between jobs.
    if (current.length === maxJobs || bytes + job.bytes + 1 > JOB_LIMITS.runBodyBytes) {
      requests.push(current);
      current = [];
      bytes = ENVELOPE_BYTES;
    }
    current.push(job);
    bytes += job.bytes + 1;
  }
  requests.push(current);
  return requests;
}

/** The server names a job by its place in the request (`jobs[3].input`); a person wants the file's line. */
export function withLines(message: string, request: readonly BatchJob[], source: string): string {
  return message.replace(/jobs\[(\d+)\]\.?/g, (whole, index: string) => {
    const job = request[Number(index)];
    return job ? `${source} line ${job.line}: ` : whole;
  });
}

/** What a failed request leaves queued, and how to queue the rest without queuing anything twice. */
export function batchOutcome(error: CliError, request: readonly BatchJob[], source: string, before: number, prefix: string): string {
  // A request is queued whole or not at all (when answered): the jobs before it stand.
  const from = `${source} line ${request[0]!.line}`;
  const earlier = before === 0 ? '' : `; the ${before} jobs before it are queued`;
  const resume = `run the same command with --idempotency-key ${prefix} within a day to queue the rest: what is queued already is not queued again`;
  // A rate limit passes: the same run resumes once its window has room.
  if (error instanceof ApiError && error.status === 429) {
    const seconds = error.retryAfterSeconds;
    const wait = seconds === undefined ? '' : `\nadd --rate-limit-wait ${seconds} to that command to have it wait for the window`;
    return `nothing from ${from} on was queued${earlier}\n${resume}${wait}`;
  }
  if (error instanceof ApiError && error.status < 500) return `nothing from ${from} on was queued${earlier}`;
  return `the request from ${from} failed: its jobs may or may not be queued${earlier}\n${resume}`;
}
