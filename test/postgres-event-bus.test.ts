// Replicas on PostgreSQL wake each other with NOTIFY (src/cluster/postgres-event-bus.ts). A replica
// alone sends nothing; one that starts listening is heard from at once, before any heartbeat has
// shown it to the others. What a user would notice: a replica that misses another's events (its
// long-polls answer only on the slow re-check), or a lone replica paying a statement per turn.
// A busy replica's events ride on its job statements (store/postgres/notifications.ts) instead of
// costing a NOTIFY of their own; a statement that fails gives them back to be sent alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { NO_POSTGRES } from './support/test-store.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { PostgresEventBus } from '../src/cluster/postgres-event-bus.js';
import { encodeEvent, type ClusterEvent } from '../src/cluster/events.js';
import { EVENT_CHANNEL } from '../src/store/postgres/notifications.js';
import { silentLogger } from '../src/domain/logger.js';
import { settles, sleep } from './support/live.js';
import { aJob, aQueue } from './store-conformance/records.js';
import { statementNames } from './support/statement-names.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (event bus)`);
const skip = NO_POSTGRES ?? false;

// Notifications reach every session of a database, whatever its schema: this file has a database
// of its own, so replicas that other test files start meanwhile cannot say hello to these.
let database: ThrowawayDatabase;
let store: PostgresStore;
let observer: pg.Client;
/** Every payload on the channel, as any listener receives it. */
const heard: string[] = [];
const buses: PostgresEventBus[] = [];
let replicaCount = 0;

interface TestReplica {
  bus: PostgresEventBus;
  id: string;
  events: ClusterEvent[];
  /** What its heartbeat would have counted of the others (undefined: no heartbeat yet). */
  othersCounted: number | undefined;
}

async function startBus(helloCountsForMs: number, othersCounted: number): Promise<TestReplica> {
  const id = `bus-test-${process.pid}-${++replicaCount}`;
  const replica = { id, events: [] as ClusterEvent[], othersCounted } as TestReplica;
  replica.bus = new PostgresEventBus(store.pool, store.options, id, silentLogger, () => replica.othersCounted, helloCountsForMs);
  replica.bus.subscribe((event) => replica.events.push(event));
  await replica.bus.start();
  buses.push(replica.bus);
  return replica;
}

const sentBy = (id: string) => heard.filter((payload) => payload.startsWith(`${id}\n`));

before(async () => {
  if (skip) return;
  database = await createThrowawayDatabase('gantry_bus_test');
  store = await PostgresStore.open({ url: database.url, max: 4 });
  observer = new pg.Client({ connectionString: database.url });
  await observer.connect();
  observer.on('notification', (message) => heard.push(message.payload ?? ''));
  await observer.query(`LISTEN ${EVENT_CHANNEL}`);
});

after(async () => {
  if (skip) return;
  for (const bus of buses) await bus.close();
  await observer.end();
  await store.close();
  await database.drop();
});

test('a replica whose heartbeat sees no other sends no notification', { skip }, async () => {
  const alone = await startBus(0, 0);
  await settles(async () => assert.equal(sentBy(alone.id).length, 1), 2000); // its hello
  for (let i = 0; i < 5; i++) alone.bus.publish({ kind: 'job', id: `job-${i}` });
  await sleep(300);
  assert.deepEqual(sentBy(alone.id), [`${alone.id}\nhello`]);
});

test('a replica that starts listening hears the next event of one that was alone', { skip }, async () => {
  const first = await startBus(60_000, 0);
  const second = await startBus(60_000, 0);
  // No heartbeat tells the first about the second: only its hello can.
  await settles(async () => {
    first.bus.publish({ kind: 'queued', id: 'endpoint-1', count: 2 });
    await sleep(50);
    assert.deepEqual(second.events[0], { kind: 'queued', id: 'endpoint-1', count: 2 });
  }, 2000);
});

test('a replica the heartbeat shows is sent events; a hello counts only for its time', { skip }, async () => {
  const sender = await startBus(200, 0);
  const receiver = await startBus(200, 0);
  await sleep(400); // the receiver's hello no longer counts and no heartbeat has shown it
  sender.bus.publish({ kind: 'stop', id: 'worker-1' });
  await sleep(300);
  assert.deepEqual(receiver.events, []);
  sender.othersCounted = 1;
  sender.bus.publish({ kind: 'stop', id: 'worker-2' });
  await settles(async () => assert.deepEqual(receiver.events, [{ kind: 'stop', id: 'worker-2' }]), 2000);
});

test('events waiting when a job statement goes out ride on it, with no NOTIFY of their own', { skip }, async () => {
  const sender = await startBus(60_000, 1);
  const receiver = await startBus(60_000, 1);
  store.notifications.carryFrom(sender.bus);
  const names = await statementNames([store.pool, store.batchPool], async () => {
    sender.bus.publish({ kind: 'job', id: 'carried-1' });
    sender.bus.publish({ kind: 'queued', id: 'endpoint-c', count: 3 });
    await store.jobs.insert(aJob(aQueue()));
    await settles(async () =>
      assert.deepEqual(receiver.events, [
        { kind: 'job', id: 'carried-1' },
        { kind: 'queued', id: 'endpoint-c', count: 3 },
      ]),
    );
    await sleep(100); // time for a NOTIFY of their own, had one been sent
  });
  assert.deepEqual(names, ['gantry_jobs_insert']);
  assert.equal(sentBy(sender.id).filter((payload) => payload.includes('carried-1')).length, 1);
});

test('events that rode on a statement that failed still reach the other replicas', { skip }, async () => {
  const sender = await startBus(60_000, 1);
  const receiver = await startBus(60_000, 1);
  store.notifications.carryFrom(sender.bus);
  const job = aJob(aQueue());
  await store.jobs.insert(job);
  sender.bus.publish({ kind: 'stop', id: 'worker-after-clash' });
  await assert.rejects(store.jobs.insert(job)); // the same id again: the statement rolls back
  await settles(async () => assert.deepEqual(receiver.events, [{ kind: 'stop', id: 'worker-after-clash' }]), 2000);
});

test('notices of more jobs than one payload holds all reach the other replicas, none lost and no insert failing', { skip }, async () => {
  const sender = await startBus(60_000, 1);
  const receiver = await startBus(60_000, 1);
  store.notifications.carryFrom(sender.bus);
  // One batch of jobs, each queued on an endpoint of its own: their notices alone pass NOTIFY's 8000 bytes.
  const endpoints: string[] = [];
  for (let bytes = 0; bytes < 10_000; bytes += `q ${endpoints.at(-1)} 1\n`.length) endpoints.push(`${aQueue()}-${'x'.repeat(60)}`);
  await Promise.all(
    endpoints.map((endpoint) => store.jobs.insert({ ...aJob(endpoint), notice: encodeEvent({ kind: 'queued', id: endpoint, count: 1 }) })),
  );
  await settles(async () => {
    const woken = new Set(receiver.events.flatMap((event) => (event.kind === 'queued' ? [event.id] : [])));
    assert.equal(endpoints.filter((endpoint) => woken.has(endpoint)).length, endpoints.length);
  }, 3000);
});
