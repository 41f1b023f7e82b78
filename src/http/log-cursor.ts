// Where a worker-log stream resumes: after the last event a reconnecting client saw
// (`Last-Event-ID`, an event id this server sent), from a moment (`since`, any RFC 3339 time),
// or the last `tail` lines. Log timestamps share one fixed format, so they compare as text.
import { unprocessable } from '../domain/errors.js';

export type LogCursor = { after: string } | { from: string } | { tail: number };

/** Log timestamps look like `2026-11-23T18:50:01.123004Z`. */
const LOG_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function logCursor(lastEventId: string | undefined, since: string | undefined, tail: number | undefined): LogCursor {
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const id = lastEventId.trim();
    if (LOG_STAMP.test(id)) return { after: id };
    return { after: normalised(id, 'the Last-Event-ID header') };
  }
  if (since !== undefined) return { from: normalised(since, 'since') };
  return { tail: tail ?? 100 };
}

export function selectLines<T extends { ts: string }>(lines: readonly T[], cursor: LogCursor): T[] {
  if ('tail' in cursor) return cursor.tail <= 0 ? [] : lines.slice(-cursor.tail);
  if ('after' in cursor) return lines.filter((line) => line.ts > cursor.after);
  return lines.filter((line) => line.ts >= cursor.from);
}

/** Any RFC 3339 time, as a log timestamp at the start of its millisecond. */
function normalised(text: string, what: string): string {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms)) throw unprocessable(`${what} must be an RFC 3339 time, got '${text}'`);
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}
