// Gantry's own batched result route (its worker SDK uses it; the RunPod protocol has one request
// per result): several jobs' results in one request, each read and checked like a job-done post,
// each with an outcome of its own. Delivery stays at least once: a repeat of a result already
// recorded is a `duplicate`, harmless; a result for a job this worker does not hold is `rejected`
// without touching the job, and neither stops the other items.
import { isTerminal } from '../domain/job-state.js';
import type { Store } from '../store/store.js';
import { readDoneBody, type DoneReport } from './worker-protocol.js';

export const MAX_RESULTS_PER_BATCH = 64;

export type ResultOutcome = { id: string; outcome: 'accepted' | 'duplicate' } | { id: string; outcome: 'rejected'; detail: string };

/** One item as read from the body: a job id and its report, or why it cannot be one. */
export type BatchItem = { id: string; report: DoneReport } | { id: string; invalid: string };

/** Reads `{"results": [{"id", "output" | "error", "stopPod"?}, ...]}`; throws a message for a body that is not one. */
export function readResultBatch(body: unknown, maxOutputBytes: number): BatchItem[] {
  const results = typeof body === 'object' && body !== null ? (body as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) throw new Error('a result batch is {"results": [{"id": ..., "output": ...}, ...]}');
  if (results.length === 0) throw new Error('a result batch needs at least one result');
  if (results.length > MAX_RESULTS_PER_BATCH) {
    throw new Error(`a result batch holds at most ${MAX_RESULTS_PER_BATCH} results, not ${results.length}`);
  }
  return results.map((item: unknown, index): BatchItem => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { id: '', invalid: `result ${index} is not an object` };
    const { id, ...rest } = item as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') return { id: '', invalid: `result ${index} has no job id` };
    if (rest.status === 'IN_PROGRESS') return { id, invalid: 'progress updates go to job-done, one per request' };
    const text = JSON.stringify(rest);
    return { id, report: readDoneBody(text, Buffer.byteLength(text), maxOutputBytes) };
  });
}

/** Whether a job is this worker's to report on; the reason when it is not. */
export async function ownership(
  store: Store,
  endpointId: string,
  workerId: string,
  jobId: string,
): Promise<'owned' | 'finished' | { rejected: string }> {
  const job = await store.jobs.get(jobId);
  if (!job || job.endpointId !== endpointId) return { rejected: `job ${jobId} is not a job of this endpoint` };
  if (job.workerId !== workerId) return { rejected: `job ${jobId} is not held by this worker` };
  return isTerminal(job.status) ? 'finished' : 'owned';
}
