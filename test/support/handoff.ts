// A submit hands its job to a take already waiting (docs/decisions/0027); these scenes end that
// take at the worst moment, after the submit chose it and before the job's write committed.
import { Cancellation } from '../../src/domain/cancellation.js';
import type { JobRecord } from '../../src/store/job-store.js';
import { sleep, type Live } from './live.js';

/** Submits a job to the take of `workerId` and ends that take meanwhile: what the submit and the take answered. */
export async function submitToEndingTake(
  g: Live,
  workerId: string,
  input: Record<string, unknown>,
): Promise<{ job: JobRecord; taken: JobRecord[] }> {
  const clientLeft = new Cancellation();
  const taking = g.services.workerProtocol.take(g.endpointId, workerId, 1, clientLeft);
  await sleep(100); // the queue is empty: the take waits, ready to be handed a job
  const endpoint = (await g.services.endpoints.get(g.adminAccountId, g.endpointId))!;
  const submitting = g.services.jobs.submit(endpoint, { input }, 60_000);
  clientLeft.abort(); // after the submit chose this take, before its write committed
  return { job: await submitting, taken: await taking };
}
