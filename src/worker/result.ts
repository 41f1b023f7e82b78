// What a handler's outcome becomes on the wire: the job-done body. Shared by the worker loop and
// local mode so both report a job the same way.
import type { Handler, WorkerJob } from './types.js';

export type DoneBody = { output: unknown; stopPod?: true } | { error: string; output?: unknown; stopPod?: true } | { stopPod?: true };

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** The message of a thrown value; a failed job must always carry a non-empty error. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  const text = typeof error === 'string' ? error : JSON.stringify(error);
  return text || 'the handler failed without a message';
}

/**
 * A returned value. As with the RunPod SDKs, a plain object's `error` key means the job FAILED
 * (its other keys, if any, are still reported as output) and `refresh_worker: true` asks for the
 * worker to be recycled after this job (`stopPod`).
 */
export function bodyForOutput(output: unknown): DoneBody {
  if (!isPlainRecord(output)) return { output: output === undefined ? null : output };
  const { error, refresh_worker: refreshWorker, ...rest } = output;
  const stopPod = refreshWorker === true ? { stopPod: true as const } : {};
  if (error === undefined || error === null || error === false || error === '') return { output: rest, ...stopPod };
  const message = typeof error === 'string' ? error : JSON.stringify(error);
  return { error: message, ...(Object.keys(rest).length > 0 ? { output: rest } : {}), ...stopPod };
}

export function bodyForError(error: unknown): DoneBody {
  return { error: errorMessage(error) };
}

export interface Outcome {
  body: DoneBody;
  /** The handler streamed: the final post carries `isStream=true`. */
  isStream: boolean;
}

/**
 * Runs a handler to its end. A streaming handler (an async iterable, or a promise of one) hands each
 * chunk to `onChunk` in order; `aggregate` makes the final output the array of chunks. `shouldGoOn`
 * turning false (the job was stopped) ends a stream early.
 */
export async function runHandler(
  handler: Handler,
  job: WorkerJob,
  stream: { onChunk(chunk: unknown): Promise<void>; aggregate: boolean; shouldGoOn(): boolean },
): Promise<Outcome> {
  let isStream = false;
  try {
    const returned = handler(job);
    const result = isAsyncIterable(returned) ? returned : await returned;
    if (!isAsyncIterable(result)) return { body: bodyForOutput(result), isStream };
    isStream = true;
    const chunks: unknown[] = [];
    for await (const chunk of result) {
      if (!stream.shouldGoOn()) break;
      if (stream.aggregate) chunks.push(chunk ?? null);
      await stream.onChunk(chunk ?? null);
    }
    return { body: stream.aggregate ? { output: chunks } : {}, isStream };
  } catch (error) {
    return { body: bodyForError(error), isStream };
  }
}
