// Long-poll wake-ups: a waiter that read the store before it waits must not sleep through a
// change made between its read and its wait (its read may wait for a commit that a completion
// in the same turn shares, and the completion's wake-up can come first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Waitlist } from '../src/services/waitlist.js';
import { Cancellation } from '../src/domain/cancellation.js';

const LONG = 60_000;

test('a wake-up after the mark ends the wait at once, for every kind of wake-up', async () => {
  const list = new Waitlist();
  const since = list.mark();
  list.wakeAll('job-1');
  assert.equal(await list.wait('job-1', LONG, undefined, since), true);

  const beforeQueued = list.mark();
  assert.equal(list.wakeOne('queue-1'), false, 'nobody was waiting yet');
  assert.equal(await list.wait('queue-1', LONG, undefined, beforeQueued), true);
});

test('a wake-up after the mark is still remembered after thousands of other keys were woken', async () => {
  const list = new Waitlist();
  const since = list.mark();
  list.wakeAll('job-1');
  // A busy server: every other job of the moment finishes before this reader gets to wait.
  for (let i = 0; i < 20_000; i++) list.wakeAll(`other-${i}`);
  list.wakeAll('job-2');
  for (let i = 0; i < 16_000; i++) list.wakeAll(`later-${i}`);
  assert.equal(await list.wait('job-2', 1000, undefined, since), true, 'woken at once, not after the wait ran out');
});

test('a wake-up before the mark, or of another key, does not end a later wait', async () => {
  const list = new Waitlist();
  list.wakeAll('job-1');
  const since = list.mark();
  list.wakeAll('job-2');
  const clientGone = new Cancellation();
  const waiting = list.wait('job-1', LONG, clientGone, since);
  clientGone.abort();
  assert.equal(await waiting, false, 'still waiting until its client left');
});

test('a waiter is still woken while it waits', async () => {
  const list = new Waitlist();
  const waiting = list.wait('job-1', LONG, undefined, list.mark());
  list.wakeAll('job-1');
  assert.equal(await waiting, true);
});

test('a waiter receives what its waker hands over; a plain wake-up or a marked one gives true', async () => {
  const list = new Waitlist<{ row: number }>();
  const handed = list.wait('job-1', LONG);
  list.wakeAll('job-1', { row: 7 });
  assert.deepEqual(await handed, { row: 7 });
  const plain = list.wait('job-1', LONG);
  list.wakeAll('job-1');
  assert.equal(await plain, true);
  // The mark only says a wake-up happened; the waiter reads the store itself then.
  assert.equal(await list.wait('job-1', LONG, undefined, list.mark() - 1), true);
});

test('a cancellation ends the waits that listen to it, once, and forgets a listener taken back', async () => {
  const list = new Waitlist();
  const gone = new Cancellation();
  const calls: string[] = [];
  const forget = gone.onAbort(() => calls.push('forgotten'));
  gone.onAbort(() => calls.push('kept'));
  forget();
  const waiting = list.wait('job-1', LONG, gone);
  gone.abort();
  gone.abort();
  assert.equal(await waiting, false);
  assert.deepEqual(calls, ['kept']);
  // Already aborted: a new wait answers at once, a new listener runs at once.
  assert.equal(await list.wait('job-1', LONG, gone), false);
  gone.onAbort(() => calls.push('late'));
  assert.deepEqual(calls, ['kept', 'late']);
});

test('a claim takes the longest-waiting waiter whose offer is accepted, and no wake-up reaches it until handed a value', async () => {
  const list = new Waitlist<string[], { worker: string }>();
  const plain = list.wait('queue-1', LONG);
  const refused = list.wait('queue-1', LONG, undefined, undefined, { worker: 'frozen' });
  const first = list.wait('queue-1', LONG, undefined, undefined, { worker: 'a' });
  const second = list.wait('queue-1', LONG, undefined, undefined, { worker: 'b' });
  const claim = list.claim('queue-1', (offer) => offer.worker !== 'frozen');
  assert.equal(claim?.offer.worker, 'a');
  list.wakeAll('queue-1'); // everyone still listed: the plain waiter, the refused one and b
  assert.deepEqual(await Promise.all([plain, refused, second]), [true, true, true]);
  assert.equal(claim!.deliver(['job-1']), true);
  assert.deepEqual(await first, ['job-1']);
  assert.equal(claim!.deliver(['job-2']), false, 'handed once');
  assert.equal(list.claim('queue-1'), undefined, 'nobody waits any more');
});

test('a claimed waiter that ends on its own first takes nothing; one released wakes to look again', async () => {
  const list = new Waitlist<string[], { worker: string }>();
  const gone = new Cancellation();
  const leaving = list.wait('queue-1', LONG, gone, undefined, { worker: 'a' });
  const leavingClaim = list.claim('queue-1')!;
  gone.abort();
  assert.equal(await leaving, false);
  assert.equal(leavingClaim.deliver(['job-1']), false, 'its client left: the job must go back');

  const timingOut = list.wait('queue-1', 20, undefined, undefined, { worker: 'b' });
  const timedOutClaim = list.claim('queue-1')!;
  assert.equal(await timingOut, false);
  assert.equal(timedOutClaim.deliver(['job-2']), false);

  const released = list.wait('queue-1', LONG, undefined, undefined, { worker: 'c' });
  list.claim('queue-1')!.release();
  assert.equal(await released, true);
});
