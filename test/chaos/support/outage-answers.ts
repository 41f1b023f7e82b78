// What a replica may answer while its database is away: a success, or 503 with Retry-After
// (problem+json) telling the client to come back. Anything else (500, a hang, a cut connection,
// a 503 without Retry-After) is a broken promise; those are kept with the request for the report.
import { describeAnswer, type Answer } from './http.js';
import { StatusTally } from './figures.js';

export function isAcceptableDuringOutage(answer: Answer): boolean {
  if (answer.status >= 200 && answer.status < 300) return true;
  return (
    answer.status === 503 &&
    answer.headers.get('retry-after') !== null &&
    (answer.headers.get('content-type') ?? '').startsWith('application/problem+json')
  );
}

export class OutageAnswers {
  readonly byStatus = new StatusTally();
  readonly broken: string[] = [];
  brokenCount = 0;

  record(request: string, answer: Answer): void {
    this.byStatus.add(answer.status);
    if (isAcceptableDuringOutage(answer)) return;
    this.brokenCount++;
    // A few examples are enough to act on; the count says how widespread it is.
    if (this.broken.length < 12) this.broken.push(`${request} -> ${describeAnswer(answer)}`);
  }
}
