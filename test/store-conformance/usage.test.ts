// Usage intervals: appended idempotently, never overlapping what a subject recorded (even from
// two connections at once), read back by account, family, owner and window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import type { UsageInterval } from '../../src/domain/usage.js';

const suite = useTestStore();
const HOUR = 3_600_000;
const T0 = Date.parse('2031-05-01T00:00:00Z');

function interval(subjectId: string, fromH: number, toH: number, more: Partial<UsageInterval> = {}): UsageInterval {
  return {
    subjectId,
    accountId: 'acct-a',
    family: 'SERVERLESS',
    ownerId: 'ep-1',
    meter: 'GPU',
    resource: 'NVIDIA L4',
    quantity: 2,
    state: 'ACTIVE',
    fromMs: T0 + fromH * HOUR,
    toMs: T0 + toH * HOUR,
    ...more,
  };
}

test(`[${TEST_STORE}] appended intervals read back whole, with their dimensions, and the last end per subject`, async () => {
  const a = interval('worker:a:gpu', 0, 1);
  const b = interval('worker:a:gpu', 1, 3, { state: 'FROZEN' });
  const c = interval('volume:v1', 0, 2, { family: 'NETWORK_VOLUME', ownerId: 'v1', meter: 'VOLUME', resource: 'STANDARD', quantity: 100 });
  assert.equal(await suite.store.usage.append([a, b, c]), 3);
  const ends = await suite.store.usage.lastEnds(['worker:a:gpu', 'volume:v1', 'worker:none']);
  assert.deepEqual([...ends].sort(), [
    ['volume:v1', T0 + 2 * HOUR],
    ['worker:a:gpu', T0 + 3 * HOUR],
  ]);
  const all = await suite.store.usage.list({ accountId: 'acct-a', fromMs: T0, toMs: T0 + 10 * HOUR });
  assert.deepEqual(all, [c, a, b]);
  assert.deepEqual(await suite.store.usage.list({ accountId: 'acct-a', family: 'NETWORK_VOLUME', fromMs: T0, toMs: T0 + HOUR }), [c]);
  assert.deepEqual(await suite.store.usage.list({ accountId: 'acct-a', ownerId: 'ep-1', fromMs: T0 + 2 * HOUR, toMs: T0 + 5 * HOUR }), [b]);
  assert.deepEqual(
    await suite.store.usage.list({ accountId: 'acct-b', fromMs: T0, toMs: T0 + 10 * HOUR }),
    [],
    'another account sees none',
  );
  assert.deepEqual(
    await suite.store.usage.list({ accountId: 'acct-a', fromMs: T0 + 3 * HOUR, toMs: T0 + 4 * HOUR }),
    [],
    'the end is exclusive',
  );
});

test(`[${TEST_STORE}] a replayed append records nothing, one overlapping recorded time is skipped, and a continuation extends its row`, async () => {
  const first = [interval('worker:b:gpu', 0, 1), interval('worker:b:gpu', 1, 2)];
  assert.equal(await suite.store.usage.append(first), 2);
  assert.equal(await suite.store.usage.append(first), 0, 'the same intervals again');
  assert.equal(await suite.store.usage.append([interval('worker:b:gpu', 1, 4)]), 0, 'same start as a recorded one');
  assert.equal(await suite.store.usage.append([interval('worker:b:gpu', 1.5, 4)]), 0, 'starts inside recorded time');
  assert.equal(await suite.store.usage.append([interval('worker:b:gpu', 2, 4)]), 1, 'continues where records end');
  const recorded = await suite.store.usage.list({ accountId: 'acct-a', ownerId: 'ep-1', fromMs: T0, toMs: T0 + 10 * HOUR });
  const ofB = recorded.filter((i) => i.subjectId === 'worker:b:gpu').map((i) => [i.fromMs - T0, i.toMs - T0]);
  assert.deepEqual(ofB, [[0, 4 * HOUR]], 'the same state and dimensions throughout: one row');
  assert.equal(await suite.store.usage.append([interval('worker:b:gpu', 4, 5, { state: 'FROZEN' })]), 1);
  assert.equal(await suite.store.usage.append([interval('worker:b:gpu', 5, 6, { quantity: 4, state: 'FROZEN' })]), 1);
  const after = (await suite.store.usage.list({ accountId: 'acct-a', ownerId: 'ep-1', fromMs: T0, toMs: T0 + 10 * HOUR })).filter(
    (i) => i.subjectId === 'worker:b:gpu',
  );
  assert.deepEqual(
    after.map((i) => [(i.fromMs - T0) / HOUR, (i.toMs - T0) / HOUR, i.state, i.quantity]),
    [
      [0, 4, 'ACTIVE', 2],
      [4, 5, 'FROZEN', 2],
      [5, 6, 'FROZEN', 4],
    ],
    'a change of state or dimensions starts a row',
  );
  assert.deepEqual(await suite.store.usage.lastEnds(['worker:b:gpu']), new Map([['worker:b:gpu', T0 + 6 * HOUR]]));
});

test(`[${TEST_STORE}] two connections appending different cuts of the same time record one of them, never both`, async () => {
  const other = await suite.another();
  for (let round = 0; round < 10; round++) {
    const subject = `worker:race-${round}:cpu`;
    const left = [interval(subject, 0, 1), interval(subject, 1, 2, { state: 'FROZEN' })];
    const right = [interval(subject, 0, 1.5)];
    await Promise.all([suite.store.usage.append(left), other.usage.append(right)]);
    const kept = (await other.usage.list({ accountId: 'acct-a', fromMs: T0, toMs: T0 + 10 * HOUR })).filter((i) => i.subjectId === subject);
    const covered = kept.reduce((sum, i) => sum + (i.toMs - i.fromMs), 0);
    const sorted = kept.map((i) => [i.fromMs, i.toMs]).sort((x, y) => x[0]! - y[0]!);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]![0]! >= sorted[i - 1]![1]!, `no overlap: ${JSON.stringify(sorted)}`);
    assert.ok(covered === 2 * HOUR || covered === 1.5 * HOUR, `one writer's time, whole or in part, never both: ${covered}`);
  }
});
