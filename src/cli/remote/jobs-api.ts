// Jobs on the queue API (/v2/{endpointId}/...): the body a job is submitted with, waiting for
// one to finish, and how a finished one is shown.
import { CliError, EXIT_USAGE } from '../options.js';
import { pathSegment, whileReachable, type ApiClient } from './api-client.js';
import { parseJson, readJsonFile } from './json-input.js';
import type { Spinner } from '../output/spinner.js';
import { print } from '../output/print.js';

export interface JobStatus {
  id: string;
  status: string;
  delayTime?: number;
  executionTime?: number;
  output?: unknown;
  error?: string;
  retries?: number;
}

export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

/** Exit status of a job that ended other than COMPLETED, so scripts can tell it from an API error. */
export const EXIT_JOB_NOT_COMPLETED = 3;

/** Each status-sync call waits this long; the loop around it waits as long as it takes. */
const WAIT_PER_CALL_MS = 60_000;

export interface InputFlags {
  input?: string;
  inputFile?: string;
}

/**
 * The run body: `{input}` from --input or --input-file. A file that already holds a request
 * body (`{"input": ...}`, as RunPod's test_input.json does) is sent as it is.
 */
export function runBody(flags: InputFlags): Record<string, unknown> {
  if (flags.input !== undefined && flags.inputFile !== undefined) throw new CliError('give --input or --input-file, not both', EXIT_USAGE);
  if (flags.input !== undefined) return { input: parseJson(flags.input, '--input') };
  if (flags.inputFile === undefined)
    throw new CliError(`give the job's input: --input '{"prompt": "..."}' or --input-file input.json (- for stdin)`, EXIT_USAGE);
  return asRunBody(readJsonFile(flags.inputFile));
}

/** A value that already is a request (an object holding `input`) is sent as it is; any other is the input. */
export function asRunBody(value: unknown): Record<string, unknown> {
  const isBody = typeof value === 'object' && value !== null && !Array.isArray(value) && 'input' in value;
  return isBody ? (value as Record<string, unknown>) : { input: value };
}

export function queuePath(endpointId: string, operation: string, jobId?: string): string {
  return `/v2/${pathSegment(endpointId)}/${operation}${jobId === undefined ? '' : `/${pathSegment(jobId)}`}`;
}

/** Waits with status-sync until the job is finished, keeping the spinner's text current. */
export async function waitUntilFinished(client: ApiClient, endpointId: string, job: JobStatus, spinner: Spinner): Promise<JobStatus> {
  let current = job;
  while (!TERMINAL.has(current.status)) {
    spinner.say(`job ${current.id} ${current.status}`);
    const id = current.id;
    current = await whileReachable(
      () => client.call<JobStatus>('POST', `${queuePath(endpointId, 'status-sync', id)}?wait=${WAIT_PER_CALL_MS}`),
      (why) => spinner.say(`job ${id}: ${why}; trying again`),
    );
  }
  return current;
}

/** For people: a status line, then the output (text as it is, anything else as JSON) or the error. */
export function showJob(job: JobStatus): void {
  const times = [
    job.delayTime !== undefined ? `queued ${job.delayTime} ms` : '',
    job.executionTime !== undefined ? `ran ${job.executionTime} ms` : '',
    job.retries ? `retries ${job.retries}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  print(`job ${job.id} ${job.status}${times ? ` (${times})` : ''}`);
  if (job.error !== undefined) print(`error: ${job.error}`);
  if (job.output !== undefined) print(typeof job.output === 'string' ? job.output : JSON.stringify(job.output, null, 2));
}

/** Exit status for a finished job: 0 when it completed. */
export function exitStatusOf(job: JobStatus): number {
  return TERMINAL.has(job.status) && job.status !== 'COMPLETED' ? EXIT_JOB_NOT_COMPLETED : 0;
}
