// Gantry's own batched result route (its worker SDK uses it; the RunPod protocol has one request
// per result): several jobs' results in one request, each read and checked like a job-done post,
// each with an outcome of its own. Delivery stays at least once: a repeat of a result already
// recorded is a `duplicate`, harmless; a result for a job this worker does not hold is `rejected`
// without touching the job, and neither stops the other items.
import { isTerminal } from '../domain/job-state.js';
import type { Store } from '../store/store.js';

export const MAX_RESULTS_PER_BATCH = 64;

export type ResultOutcome = { id: string; outcome: 'accepted' | 'duplicate' } | { id: string; outcome: 'rejected'; detail: string };

/** One item as read from the body: a job id and its report, or why it cannot be one. */
export type BatchItem<Report> = { id: string; report: Report } | { id: string; invalid: string };

/** Whether a job is this worker's to report on; the reason when it is not. */
export async function ownership(
  store: Store,
  endpointId: string,
  workerId: string,
  jobId: string,
): Promise<'owned' | 'finished' | { rejected: string }> {
  const job = await store.jobs.getState(jobId);
  if (!job || job.endpointId !== endpointId) return { rejected: `job ${jobId} is not a job of this endpoint` };
  if (job.workerId !== workerId) return { rejected: `job ${jobId} is not held by this worker` };
  return isTerminal(job.status) ? 'finished' : 'owned';
}
