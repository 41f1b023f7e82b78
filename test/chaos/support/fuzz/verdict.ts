// What counts as a failed fuzz request, and the tallies the fuzz scenario reports.
import { StatusTally } from '../figures.js';
import type { FuzzRequest } from './requests.js';

export interface Outcome {
  status: number;
  contentType: string;
  retryAfter: string | null;
  /** Why there was no answer (status 0). */
  error?: string;
}

export type Verdict = 'ok' | 'balancer-without-worker' | 'server-error' | 'not-problem-json' | 'no-answer';

export function judge(request: Pick<FuzzRequest, 'toWorkerlessBalancer'>, outcome: Outcome): Verdict {
  const problemJson = outcome.contentType.startsWith('application/problem+json');
  if (outcome.status === 0) return 'no-answer';
  // The one 5xx that is the documented answer: a load-balanced request with no worker to take it.
  if (request.toWorkerlessBalancer && outcome.status === 503 && problemJson && outcome.retryAfter !== null)
    return 'balancer-without-worker';
  // 501 problem+json is the documented answer of what Gantry does not offer (registry delegations).
  if (outcome.status === 501 && problemJson) return 'ok';
  if (outcome.status >= 500) return 'server-error';
  if (outcome.status >= 400 && !problemJson) return 'not-problem-json';
  return 'ok';
}

/** Failures grouped by the route aimed at, the method sent and what came back, so thousands collapse to a readable list. */
export class FuzzFindings {
  readonly byStatus = new StatusTally();
  readonly byVerdict = new StatusTally();
  private readonly groups = new Map<string, { count: number; example: string }>();
  /** The same failures grouped by answer only: the short list of distinct bugs. */
  private readonly answers = new Map<string, { count: number; example: string }>();

  record(request: FuzzRequest, outcome: Outcome, verdict: Verdict): void {
    this.byStatus.add(outcome.status);
    this.byVerdict.add(verdict);
    if (verdict === 'ok' || verdict === 'balancer-without-worker') return;
    const sent = request.method === request.route.split(' ')[0] ? request.route : `${request.method} on ${request.route}`;
    const key = `${verdict}: ${sent} -> ${outcome.status} ${outcome.contentType || '(no content-type)'}`;
    const group = this.groups.get(key) ?? {
      count: 0,
      example: `${request.kind}: ${request.method} ${request.path.slice(0, 100)}${outcome.error ? ` (${outcome.error})` : ''}`,
    };
    group.count++;
    this.groups.set(key, group);
    const answerKey = `${verdict}: ${outcome.status} ${outcome.contentType || '(no content-type)'}`;
    const answer = this.answers.get(answerKey) ?? { count: 0, example: group.example };
    answer.count++;
    this.answers.set(answerKey, answer);
  }

  get failures(): number {
    let sum = 0;
    for (const group of this.groups.values()) sum += group.count;
    return sum;
  }

  get kinds(): number {
    return this.groups.size;
  }

  describe(limit = 30): string {
    const list = (groups: Map<string, { count: number; example: string }>) => {
      const sorted = [...groups.entries()].sort(([, a], [, b]) => b.count - a.count);
      const lines = sorted.slice(0, limit).map(([key, group]) => `  ${group.count}x ${key}\n      e.g. ${group.example}`);
      if (sorted.length > limit) lines.push(`  ... and ${sorted.length - limit} more`);
      return lines.join('\n');
    };
    return `by answer:\n${list(this.answers)}\nby route:\n${list(this.groups)}`;
  }
}
