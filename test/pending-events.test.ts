// The events a replica has yet to send: a fact goes once however often it was published, while
// queued jobs are counts that add up per endpoint, or takers on other replicas would wake too few.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingEvents } from '../src/cluster/pending-events.js';

const drain = (pending: PendingEvents, room = Infinity) => {
  const lines: string[] = [];
  pending.takeWhile((line) => lines.length < room && lines.push(line) > 0);
  return lines;
};

test('queued counts of one endpoint add up; facts are sent once; the order is kept', () => {
  const pending = new PendingEvents();
  for (const line of ['j job0', 'q ep1 1', 'q ep1 1', 'j job1', 'q ep2 4', 'j job1', 'q ep1 2']) pending.add(line);
  assert.equal(pending.size, 4);
  assert.deepEqual(drain(pending), ['j job0', 'q ep1 4', 'j job1', 'q ep2 4']);
  assert.equal(pending.size, 0);
});

test('what does not fit stays for the next payload', () => {
  const pending = new PendingEvents();
  for (const line of ['q ep1 1', 'j job1', 'k key1']) pending.add(line);
  assert.deepEqual(drain(pending, 2), ['q ep1 1', 'j job1']);
  assert.deepEqual(drain(pending), ['k key1']);
});
