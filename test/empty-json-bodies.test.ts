// RunPod's Python client sets Content-Type: application/json on every request, so cancel and
// purge-queue arrive with that type and no body: they must work, as on the hosted service.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

/** A request as the Python client's session sends it: JSON content type whatever the body. */
const asPythonClient = (method: string, path: string, body?: string) =>
  fetch(`${g.url}${path}`, { method, headers: { authorization: g.adminKey, 'content-type': 'application/json' }, body });

test('cancel, retry and purge-queue accept a JSON content type with no body', async () => {
  const queued = (await g.queue('POST', '/run', { input: { n: 1 } })).json.id as string;
  const cancel = await asPythonClient('POST', `/v2/${g.endpointId}/cancel/${queued}`);
  assert.equal(cancel.status, 200);
  assert.equal(((await cancel.json()) as { status: string }).status, 'CANCELLED');

  // Retry reads no body either: a cancelled job is refused for its status, not for the request.
  const retry = await asPythonClient('POST', `/v2/${g.endpointId}/retry/${queued}`);
  assert.equal(retry.status, 409);
  assert.match(((await retry.json()) as { detail: string }).detail, /CANCELLED/);

  await g.queue('POST', '/run', { input: { n: 2 } });
  const purge = await asPythonClient('POST', `/v2/${g.endpointId}/purge-queue`);
  assert.equal(purge.status, 200);
  assert.ok(((await purge.json()) as { removed: number }).removed >= 1);
});

test('a DELETE with a JSON content type and no body works', async () => {
  const created = await g.call('POST', '/v2/serverless', {
    name: 'to-delete',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  const res = await fetch(`${g.url}/v2/serverless/${created.json().id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${g.adminKey}`, 'content-type': 'application/json' },
  });
  assert.equal(res.status, 204);
});

test('a route that needs a body still says so clearly when it gets none', async () => {
  const res = await asPythonClient('POST', `/v2/${g.endpointId}/run`);
  assert.equal(res.status, 400);
  assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
  const problem = (await res.json()) as { detail: string };
  assert.match(problem.detail, /body/);
});
