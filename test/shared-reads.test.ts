// The short-lived copies of endpoints, API keys (PostgreSQL) and worker credentials: when a copy
// runs out on a busy server, the requests that find it gone at the same moment share one read of
// the database instead of each sending the same query; a change made meanwhile is never hidden by
// a read that began before it.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import { anAccount, anEndpoint, aKey } from './store-conformance/records.js';
import { EndpointCache } from '../src/services/endpoint-cache.js';
import { ShortLivedCopies } from '../src/domain/short-lived-copies.js';
import { WorkerCredentialService } from '../src/services/worker-credentials.js';
import type { EndpointRecord } from '../src/store/store.js';
import type { ApiKeyRecord } from '../src/store/store.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-shared-reads-'));
const account = anAccount();
let t: TestStore;

before(async () => {
  t = await openTestStore(dataDir);
  await t.store.ensureAccount(account);
});
after(async () => {
  await t.store.close();
  await t.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Counts the store's endpoint reads for the test; while `hold` is set, each waits for it before answering what it read. */
function countEndpointReads(context: TestContext) {
  const read = t.store.findEndpoint.bind(t.store);
  const counter = { reads: 0, hold: undefined as Promise<void> | undefined };
  context.mock.method(t.store, 'findEndpoint', async (id: string) => {
    counter.reads++;
    const hold = counter.hold;
    const found = await read(id);
    await hold;
    return found;
  });
  return counter;
}

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  return { opened: new Promise((resolve) => (open = resolve)), open };
}

test(`[${TEST_STORE}] requests that find an endpoint's copy gone at the same moment share one read`, async (context) => {
  const endpoint = anEndpoint(account.id);
  await t.store.insertEndpoint(endpoint);
  let clock = 0;
  const cache = new EndpointCache(t.store, () => clock);
  const counter = countEndpointReads(context);
  assert.equal((await cache.get(account.id, endpoint.id))?.id, endpoint.id);
  assert.equal(counter.reads, 1);
  clock += 1000; // the copy has run out
  const found = await Promise.all(Array.from({ length: 20 }, () => cache.get(account.id, endpoint.id)));
  assert.deepEqual(new Set(found.map((e) => e?.id)), new Set([endpoint.id]), 'every request gets the endpoint');
  assert.equal(counter.reads, 2, 'twenty requests, one read');
  assert.equal(await cache.get(anAccount().id, endpoint.id), undefined, "another account's request still gets nothing");
  assert.equal(counter.reads, 2, 'from the copy');
});

test(`[${TEST_STORE}] an endpoint changed while its copy was being read is read again, and the older read is not kept`, async (context) => {
  const endpoint = anEndpoint(account.id);
  await t.store.insertEndpoint(endpoint);
  const cache = new EndpointCache(t.store, () => 0);
  const counter = countEndpointReads(context);
  const held = gate();
  counter.hold = held.opened;
  const before = cache.get(account.id, endpoint.id);
  // The change lands and is announced while that read waits.
  const changed: EndpointRecord = { ...endpoint, spec: { ...endpoint.spec, name: 'renamed' }, revision: endpoint.revision + 1 };
  assert.equal(await t.store.updateEndpoint(changed, endpoint.revision), true);
  cache.invalidate(endpoint.id);
  counter.hold = undefined;
  const after = await cache.get(account.id, endpoint.id);
  assert.equal(after?.spec.name, 'renamed', 'a request after the change does not join the read begun before it');
  held.open();
  await before;
  assert.equal((await cache.get(account.id, endpoint.id))?.spec.name, 'renamed', 'the copy kept is the one read after the change');
  assert.equal(counter.reads, 2);
});

test('copies kept like API keys on PostgreSQL: concurrent reads share one, and a key forgotten meanwhile is read anew', async () => {
  const key = aKey(account.id);
  const revoked: ApiKeyRecord = { ...key, revokedAt: new Date().toISOString() };
  const copies = new ShortLivedCopies<ApiKeyRecord | undefined>({
    freshForMs: 1000,
    maxEntries: 10,
    now: () => 0,
    keep: (k) => k !== undefined,
  });
  let reads = 0;
  const held = gate();
  let stored: ApiKeyRecord | undefined = key;
  const read = async () => {
    reads++;
    const answer = stored;
    await held.opened;
    return answer;
  };
  const first = Array.from({ length: 10 }, () => copies.get(key.id, read));
  assert.equal(reads, 1, 'ten reads at once, one query');
  stored = revoked;
  copies.forget(key.id);
  const afterRevocation = copies.get(key.id, read);
  held.open();
  assert.deepEqual(new Set((await Promise.all(first)).map((k) => k?.revokedAt)), new Set([null]));
  assert.notEqual((await afterRevocation)?.revokedAt, null, 'a read after the revocation sees it');
  assert.notEqual((await copies.get(key.id, read))?.revokedAt, null, 'and only that read is kept');
  assert.equal(reads, 2);
  stored = undefined;
  assert.equal(await copies.get('unknown', read), undefined);
  assert.equal(await copies.get('unknown', read), undefined);
  assert.equal(reads, 4, 'an unknown key is not kept: one made meanwhile elsewhere works at once');
});

test(`[${TEST_STORE}] a worker's requests that arrive together check its credential once`, async (context) => {
  const endpoint = anEndpoint(account.id);
  await t.store.insertEndpoint(endpoint);
  const credentials = new WorkerCredentialService(t.store);
  const token = await credentials.create(endpoint.id);
  const counter = countEndpointReads(context);
  const checked = await Promise.all(Array.from({ length: 5 }, () => credentials.verify(token)));
  assert.deepEqual(checked, Array(5).fill(endpoint.id));
  assert.equal(counter.reads, 1, 'five requests, one check');
  assert.equal(await credentials.verify(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')), undefined, 'a wrong secret is refused');
});

test('copies kept while a mark holds (API keys on SQLite): a moved mark drops them all, and no mark keeps nothing', async () => {
  let mark: number | undefined = 1;
  let stored = 'before';
  let reads = 0;
  const held = gate();
  const copies = new ShortLivedCopies<string>({ freshForMs: Infinity, maxEntries: 10, mark: () => mark });
  const read = async () => {
    reads++;
    const answer = stored;
    await held.opened;
    return answer;
  };
  const first = Promise.all([copies.get('k', read), copies.get('k', read)]);
  assert.equal(reads, 1, 'two misses at once, one read');
  stored = 'after';
  mark = 2; // another process wrote a key while that read was under way
  const afterWrite = copies.get('k', read);
  held.open();
  assert.deepEqual(await first, ['before', 'before']);
  assert.equal(await afterWrite, 'after', 'a request after the write does not join the read begun before it');
  assert.equal(await copies.get('k', read), 'after', 'the copy kept is the one read after the write');
  assert.equal(reads, 2);
  mark = undefined;
  await copies.get('k', read);
  await copies.get('k', read);
  assert.equal(reads, 4, 'a store that cannot tell is read every time');
});
