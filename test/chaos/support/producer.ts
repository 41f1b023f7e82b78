// Producers submit small jobs through /run at a steady pace and remember every job the server
// acknowledged (200 with an id): those are the jobs a crash must not lose. A refused or cut
// submission is tried on the next target, as a client behind a load balancer would.
import { callJson } from './http.js';
import { sleep, type LoopGuard } from './bounded.js';
import { StatusTally } from './figures.js';

export interface ProducerOptions {
  /** Servers to try, in order, for each submission; read afresh every time. */
  targets: () => string[];
  endpointId: string;
  apiKey: string;
  guard: LoopGuard;
  /** Pause between two submissions of one producer. */
  intervalMs: number;
  /** Upper bound on submissions by this producer. */
  maxJobs: number;
  /** Tag in the input, so a job names the producer that made it. */
  name: string;
}

export class JobLedger {
  /** Acknowledged job id -> when the acknowledgement arrived (ms since epoch). */
  readonly accepted = new Map<string, number>();
  /** Every submission attempt's answer, by status (0 = no answer). */
  readonly answers = new StatusTally();

  /** The first acknowledgement at or after `since`, or undefined. */
  firstAcceptedAfter(since: number): number | undefined {
    let first: number | undefined;
    for (const at of this.accepted.values()) if (at >= since && (first === undefined || at < first)) first = at;
    return first;
  }
}

export async function produce(options: ProducerOptions, ledger: JobLedger): Promise<void> {
  for (let n = 0; n < options.maxJobs && options.guard.running; n++) {
    const started = Date.now();
    for (const target of options.targets()) {
      const answer = await callJson(
        target,
        options.apiKey,
        'POST',
        `/v2/${options.endpointId}/run`,
        { input: { producer: options.name, n } },
        5000,
      );
      ledger.answers.add(answer.status);
      if (answer.status === 200 && typeof answer.json?.id === 'string') {
        ledger.accepted.set(answer.json.id, Date.now());
        break;
      }
    }
    await sleep(Math.max(0, options.intervalMs - (Date.now() - started)));
  }
}
