// How gantry jobs run-batch cuts a JSON Lines file into requests the server accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobsFromLines, requestsOf, withLines } from '../src/cli/remote/job-batches.js';

const MB = 1024 * 1024;

test('requests hold at most 1000 jobs and 10 MB, in file order', () => {
  const small = jobsFromLines(Array.from({ length: 2001 }, (_, n) => `{"n": ${n}}`).join('\n'), 'f');
  assert.deepEqual(
    requestsOf(small).map((request) => request.length),
    [1000, 1000, 1],
  );
  const large = jobsFromLines(Array.from({ length: 5 }, () => JSON.stringify({ text: 'x'.repeat(4 * MB) })).join('\n'), 'f');
  const requests = requestsOf(large);
  assert.deepEqual(
    requests.map((request) => request.map((job) => job.line)),
    [[1, 2], [3, 4], [5]],
  );
  for (const request of requests) {
    const bytes = Buffer.byteLength(JSON.stringify({ jobs: request.map((job) => job.body) }));
    assert.ok(bytes <= 10 * MB, `a request of ${bytes} bytes`);
  }
});

test('a line too large for any request, or a file without jobs, is refused before anything is sent', () => {
  assert.throws(
    () => jobsFromLines(`{"n": 1}\n${JSON.stringify({ text: 'x'.repeat(10 * MB) })}`, 'jobs.jsonl'),
    /jobs.jsonl line 2: a job of \d+ bytes/,
  );
  assert.throws(() => jobsFromLines('\n  \n', 'jobs.jsonl'), /jobs.jsonl holds no jobs/);
});

test("the server's item positions become the file's lines", () => {
  const request = jobsFromLines('{"a": 1}\n\n{"b": 2}\n{"c": 3}', 'f');
  assert.equal(
    withLines('  - jobs[2].input: must be object\n  - jobs[0].extra: x', request, 'f'),
    '  - f line 4: input: must be object\n  - f line 1: extra: x',
  );
});
