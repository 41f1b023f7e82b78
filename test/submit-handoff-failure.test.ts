// A submit hands its job to a waiting take (docs/decisions/0027). When that take has ended and the
// job cannot go back to the queue (the database failed at that instant), the submit still stands:
// the job is stored, it waits for its lease to lapse, and the operator is told why in the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startLive } from './support/live.js';
import { submitToEndingTake } from './support/handoff.js';

test('a handed job that cannot go back to the queue is logged, and the submit still stands', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      );
      done();
    },
  });
  const g = await startLive({}, {}, { logger: pino({ level: 'warn' }, sink) });
  try {
    const jobs = g.services.store.jobs;
    const handBack = jobs.handBack.bind(jobs);
    jobs.handBack = () => Promise.reject(new Error('database unreachable'));
    const { job, taken } = await submitToEndingTake(g, 'w-gone', { lost: true });
    jobs.handBack = handBack;

    assert.equal(job.status, 'IN_QUEUE', 'the submit is answered as accepted');
    assert.deepEqual(taken, []);
    const row = await jobs.get(job.id);
    assert.deepEqual([row?.status, row?.workerId], ['IN_PROGRESS', 'w-gone'], 'held until its lease lapses');
    const warning = lines.find((line) => line.jobId === job.id);
    assert.ok(warning, `a log line names the job: ${JSON.stringify(lines)}`);
    assert.equal(warning.workerId, 'w-gone');
    assert.match(String(warning.msg), /could not go back to the queue/);
    assert.match(JSON.stringify(warning.err), /database unreachable/);
  } finally {
    await g.close();
  }
});
