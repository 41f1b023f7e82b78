// Worker-log streams resume where a client left off: after the last event id it saw, or from a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogBuffer } from '../src/runtime/log-buffer.js';
import { logCursor, selectLines } from '../src/http/log-cursor.js';
import { ApiError } from '../src/domain/errors.js';

test('every line gets a unique, increasing timestamp, even many in one millisecond', () => {
  const buffer = new LogBuffer(5000);
  for (let i = 0; i < 2500; i++) buffer.system(`line ${i}`);
  const stamps = buffer.tail(5000).map((l) => l.ts);
  assert.equal(new Set(stamps).size, stamps.length);
  assert.deepEqual([...stamps].sort(), stamps, 'text order is time order');
  assert.ok(stamps.every((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(s)));
});

test('Last-Event-ID resumes right after that line; it wins over since and tail', () => {
  const buffer = new LogBuffer(100);
  for (let i = 0; i < 10; i++) buffer.system(`line ${i}`);
  const lines = buffer.tail(100);
  const seen = lines[6]!.ts;
  const resumed = selectLines(lines, logCursor(seen, '2000-01-01T00:00:00Z', 1));
  assert.deepEqual(
    resumed.map((l) => l.line),
    ['line 7', 'line 8', 'line 9'],
  );
});

test('since takes any RFC 3339 time and resumes from it; tail is the default', () => {
  const lines = [
    { ts: '2026-11-23T18:00:00.000000Z', line: 'a' },
    { ts: '2026-11-23T18:00:01.000000Z', line: 'b' },
    { ts: '2026-11-23T18:00:01.000001Z', line: 'c' },
  ];
  assert.deepEqual(
    selectLines(lines, logCursor(undefined, '2026-11-23T19:00:01+01:00', 1)).map((l) => l.line),
    ['b', 'c'],
  );
  assert.deepEqual(
    selectLines(lines, logCursor(undefined, undefined, 1)).map((l) => l.line),
    ['c'],
  );
  assert.deepEqual(selectLines(lines, logCursor(undefined, undefined, 0)), []);
  assert.throws(
    () => logCursor(undefined, 'yesterday', undefined),
    (err: unknown) => err instanceof ApiError && err.status === 422,
  );
});
