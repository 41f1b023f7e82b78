// The end-of-scenario account: every acknowledged job is looked up until it is terminal (bounded),
// then counted as completed, failed or lost.
import { callJson } from './http.js';
import { inParallel, sleep } from './bounded.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export interface JobAccount {
  accepted: number;
  completed: number;
  /** Terminal but not COMPLETED. */
  failed: number;
  /** Acknowledged but never completed: unknown, still pending at the deadline, or failed. */
  lost: number;
  /** A few lost jobs with their last status, for the failure message. */
  lostExamples: string[];
  settleMs: number;
}

/**
 * Polls the status of every job (through the first target that answers) until all are terminal
 * or `timeoutMs` passes, then accounts for them.
 */
export async function settleJobs(
  targets: () => string[],
  apiKey: string,
  endpointId: string,
  jobIds: readonly string[],
  timeoutMs: number,
): Promise<JobAccount> {
  const started = Date.now();
  const last = new Map<string, string>();
  let pending = [...jobIds];
  for (let round = 0; pending.length > 0 && round < 1000; round++) {
    let answered = 0;
    await inParallel(pending, 8, async (id) => {
      for (const target of targets()) {
        const answer = await callJson(target, apiKey, 'GET', `/v2/${endpointId}/status/${id}`, undefined, 5000);
        if (answer.status === 0) continue;
        answered++;
        last.set(id, answer.status === 200 ? String(answer.json?.status) : `HTTP ${answer.status}`);
        return;
      }
    });
    // No server answered at all: they are gone, and waiting longer will not bring the jobs back.
    if (answered === 0) break;
    pending = pending.filter((id) => !TERMINAL.has(last.get(id) ?? ''));
    if (pending.length === 0 || Date.now() - started > timeoutMs) break;
    await sleep(250);
  }
  const completed = jobIds.filter((id) => last.get(id) === 'COMPLETED').length;
  const failed = jobIds.filter((id) => TERMINAL.has(last.get(id) ?? '') && last.get(id) !== 'COMPLETED').length;
  const lostIds = jobIds.filter((id) => last.get(id) !== 'COMPLETED');
  return {
    accepted: jobIds.length,
    completed,
    failed,
    lost: lostIds.length,
    lostExamples: lostIds.slice(0, 5).map((id) => `${id}: ${last.get(id) ?? 'never answered'}`),
    settleMs: Date.now() - started,
  };
}
