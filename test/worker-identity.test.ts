// A worker id belongs to the endpoint it first worked for: another endpoint's credential cannot
// act as it, drain its stop requests or change its counts. One credential cannot flood /health
// with invented workers: a bare long-poll is not a ready worker, and there is a cap.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

let g: Live;
let other: { id: string; key: string };
before(async () => {
  g = await startLive({ maxWorkersPerEndpoint: '4', takeWaitMs: '300' });
  const created = await g.call('POST', '/v2/serverless', queueEndpointBody('other-endpoint'));
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  other = { id, key: await g.services.workerCredentials.create(id) };
});
after(() => g.close());

/** Calls endpoint `other`'s worker protocol with its own credential. */
const asOther = (path: string) => fetch(`${g.url}/v2/${other.id}${path}`, { headers: { authorization: other.key } });
const health = async () => (await g.queue('GET', '/health')).json.workers;

test("another endpoint's credential using a bound worker id is refused and changes nothing", async () => {
  const submitted = await g.queue('POST', '/run', { input: { n: 1 } });
  const taken = await g.worker('GET', '/job-take/bound-w1');
  assert.equal(taken.status, 200);
  await g.worker('GET', `/ping/bound-w1?job_id=${taken.json.id}`);
  assert.equal((await health()).running, 1);

  // The job is cancelled: its worker must learn it on its stop channel.
  assert.equal((await g.queue('POST', `/cancel/${submitted.json.id}`)).status, 200);
  for (const path of ['/job-stop/bound-w1', '/ping/bound-w1', '/job-take/bound-w1']) {
    const res = await asOther(path);
    assert.equal(res.status, 409, path);
    assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
  }
  const stops = await g.worker('GET', '/job-stop/bound-w1');
  assert.deepEqual(stops.json, { jobsToStop: [submitted.json.id] }, 'the real worker still receives its stop');
  assert.equal((await health()).running + (await health()).idle, 1, 'its counts are untouched');
});

test('a long-poll with an invented id is not a ready worker until it pings', async () => {
  await Promise.all(['ghost-1', 'ghost-2'].map((id) => asOther(`/job-take/${id}`)));
  const before = (await g.call('GET', `/v2/${other.id}/health`)).json().workers;
  assert.equal(before.idle, 0);
  assert.equal(before.ready, 0);
  await asOther('/ping/ghost-1');
  const after = (await g.call('GET', `/v2/${other.id}/health`)).json().workers;
  assert.equal(after.idle, 1);
});

test('one credential can make only so many workers known at once', async () => {
  const answers = await Promise.all(['cap-1', 'cap-2', 'cap-3'].map((id) => asOther(`/ping/${id}`)));
  // ghost-1 and ghost-2 are still live from the previous test: two of these three fit under the cap of four.
  const refused = answers.filter((res) => res.status === 429);
  assert.equal(refused.length, 1);
  assert.match(String(refused[0]!.headers.get('content-type')), /^application\/problem\+json/);
  assert.ok(refused[0]!.headers.get('retry-after'));
  assert.equal((await asOther('/ping/ghost-1')).status, 200, 'a known worker keeps working');
});
