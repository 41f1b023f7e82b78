// Reads a job-done-batch body into items for the worker protocol: each item checked like a
// job-done body, so one bad item is its own outcome rather than the whole batch's.
import { readDoneBody, type DoneReport } from '../services/worker-protocol.js';
import { MAX_RESULTS_PER_BATCH, type BatchItem } from '../services/worker-result-batch.js';
import { jsonSourceAt, mayChangeNumbers } from '../domain/json-source.js';

/** Reads `{"results": [{"id", "output" | "error", "stopPod"?}, ...]}`; throws a message for a body that is not one. */
export function readResultBatch(body: unknown, maxOutputBytes: number, source: string): BatchItem<DoneReport>[] {
  // Each item is read from its own text, so an output keeps its numbers as the worker wrote them.
  const exact = mayChangeNumbers(source);
  const results = typeof body === 'object' && body !== null ? (body as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) throw new Error('a result batch is {"results": [{"id": ..., "output": ...}, ...]}');
  if (results.length === 0) throw new Error('a result batch needs at least one result');
  if (results.length > MAX_RESULTS_PER_BATCH) {
    throw new Error(`a result batch holds at most ${MAX_RESULTS_PER_BATCH} results, not ${results.length}`);
  }
  return results.map((item: unknown, index): BatchItem<DoneReport> => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { id: '', invalid: `result ${index} is not an object` };
    const { id, ...rest } = item as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') return { id: '', invalid: `result ${index} has no job id` };
    if (id.includes('\u0000')) return { id, invalid: `result ${index}: a job id holds no NUL character` };
    if (rest.status === 'IN_PROGRESS') return { id, invalid: 'progress updates go to job-done, one per request' };
    const text = (exact ? jsonSourceAt(source, ['results', index]) : undefined) ?? JSON.stringify(rest);
    return { id, report: readDoneBody(text, Buffer.byteLength(text), maxOutputBytes) };
  });
}
