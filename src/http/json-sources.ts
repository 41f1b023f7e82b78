// The text of a JSON body, kept beside it when parsing and writing it again could change its
// numbers (domain/json-source.ts), so a job's input is stored as the client wrote it.
import { jsonSourceAt, mayChangeNumbers } from '../domain/json-source.js';
import type { RunRequest } from '../services/jobs.js';

const sources = new WeakMap<object, string>();

/** Called by the JSON parser with each body it parsed. */
export function keepSourceOf(body: unknown, text: string): void {
  if (typeof body === 'object' && body !== null && mayChangeNumbers(text)) sources.set(body, text);
}

/** The source text at `path` of a parsed body, if it was kept. */
function sourceAt(body: object, path: readonly (string | number)[]): string | undefined {
  const text = sources.get(body);
  return text === undefined ? undefined : jsonSourceAt(text, path);
}

/** A run or runsync body with its input's source text, where it was kept; else the body itself. */
export function withExactInput<T extends RunRequest>(body: T): T {
  const inputText = sourceAt(body, ['input']);
  return inputText === undefined ? body : { ...body, inputText };
}

/** A run-batch body's jobs, each with its input's source text where it was kept. */
export function jobsWithExactInputs<T extends RunRequest>(body: { jobs: T[] }): T[] {
  if (!sources.has(body)) return body.jobs;
  return body.jobs.map((job, index) => {
    const inputText = sourceAt(body, ['jobs', index, 'input']);
    return inputText === undefined ? job : { ...job, inputText };
  });
}
