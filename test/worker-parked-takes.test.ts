// Long-polls of parked workers (frozen by FlashBoot, or draining in a release roll or above a
// lowered max): they take no job and swallow no wake-up, the server stays free while they wait,
// and unparking one puts its open long-poll back to work.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sleep, startLive, type Live } from './support/live.js';
import { Cancellation } from '../src/domain/cancellation.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const run = async (input: Record<string, unknown> = {}) => (await g.queue('POST', '/run', { input })).json.id as string;

test('two parked workers waiting do not spin the server when a job arrives; a free worker takes it', async () => {
  const left = new Cancellation();
  const parked = ['w-parked-1', 'w-parked-2'];
  const takes = parked.map((workerId) => g.services.workerProtocol.take(g.endpointId, workerId, 1, left, 5000));
  await sleep(100);
  for (const workerId of parked) g.services.workers.park(workerId);
  try {
    const id = await run({ n: 1 });
    // Were the two to pass the wake-up to each other, timers would not run until their deadline.
    const first = await Promise.race([Promise.all(takes).then(() => 'the parked takes ended'), sleep(200).then(() => 'timers ran')]);
    assert.equal(first, 'timers ran', 'the event loop stays free');
    const [job] = await g.services.workerProtocol.take(g.endpointId, 'w-free', 1, new Cancellation(), 2000);
    assert.equal(job?.id, id, 'the job waits for a worker that can take it');
  } finally {
    for (const workerId of parked) g.services.workers.unpark(workerId);
    left.abort();
  }
  assert.deepEqual(await Promise.all(takes), [[], []]);
});

test('unparking a worker puts its open long-poll back to work: it takes the next job', async () => {
  const take = g.services.workerProtocol.take(g.endpointId, 'w-resumed', 1, new Cancellation(), 10_000);
  await sleep(100);
  g.services.workers.park('w-resumed');
  await sleep(100);
  g.services.workers.unpark('w-resumed');
  const id = await run({ n: 2 });
  const [job] = await take;
  assert.equal(job?.id, id);
});
