// Secret references in an endpoint's env reach workers resolved: queue and HTTP workers alike,
// the value current at each start, and a start that fails naming a secret that is gone.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntimeRig, type RuntimeRig } from './support/runtime-rig.js';

const FLAGS = { scaleIntervalMs: '60000', crashBackoffMs: '1000', workerPingIntervalMs: '10000' };

async function rig(t: TestContext): Promise<RuntimeRig> {
  const r = await startRuntimeRig(FLAGS);
  t.after(() => r.close());
  r.runtime.start();
  await r.runtime.tick();
  return r;
}

const alwaysOne = { workers: { min: 1, max: 1, idleTimeout: 5 } };

test('queue and HTTP workers start with the secret values in place of the references', async (t) => {
  const r = await rig(t);
  await r.secrets.create(r.accountId, { name: 'hf_token', value: 'hf_abc123' });
  const env = { HF_TOKEN: '{{ RUNPOD_SECRET_hf_token }}', URL: 'https://me:{{RUNPOD_SECRET_hf_token}}@hub', MODE: 'fast' };
  const queue = await r.createEndpoint({ ...alwaysOne, env });
  const http = await r.createEndpoint({
    ...alwaysOne,
    type: 'LOAD_BALANCER',
    scaling: { type: 'REQUEST_COUNT', requestCount: 1 },
    env: { ...env, PORT: '8000' },
  });
  await r.runtime.tick();
  const envOf = (endpointId: string) => r.provider.started.find((spec) => spec.endpointId === endpointId)?.env;
  for (const endpoint of [queue, http]) {
    assert.equal(envOf(endpoint.id)?.HF_TOKEN, 'hf_abc123', endpoint.spec.type);
    assert.equal(envOf(endpoint.id)?.URL, 'https://me:hf_abc123@hub');
    assert.equal(envOf(endpoint.id)?.MODE, 'fast');
  }
  assert.equal(envOf(http.id)?.PORT, '8000');
  assert.deepEqual((await r.store.findEndpoint(queue.id))?.spec.env, env, 'the stored env keeps the references');
});

test('a rotated value reaches the workers started after the rotation; the running one keeps its own', async (t) => {
  const r = await rig(t);
  await r.secrets.create(r.accountId, { name: 'api_key', value: 'first' });
  const e = await r.createEndpoint({ ...alwaysOne, env: { KEY: '{{ RUNPOD_SECRET_api_key }}' } });
  await r.runtime.tick();
  const [first] = r.provider.started;
  assert.equal(first?.env.KEY, 'first');
  await r.secrets.rotate(r.accountId, 'api_key', 'second');
  assert.equal(r.provider.running.get(first!.workerId)?.spec.env.KEY, 'first');
  r.provider.crash(first!.workerId, 1);
  r.time.advance(1000);
  await r.runtime.tick();
  await r.runtime.tick();
  const replacement = r.provider.started.at(-1)!;
  assert.notEqual(replacement.workerId, first!.workerId);
  assert.equal(replacement.env.KEY, 'second');
  assert.equal(replacement.endpointId, e.id);
});

test('a secret gone since the endpoint was written fails the start, naming the secret and not the value', async (t) => {
  const r = await rig(t);
  await r.secrets.create(r.accountId, { name: 'kept', value: 'kept-value-1' });
  // The store refuses to delete a referenced secret, so the endpoint is written after the delete,
  // as a concurrent delete that won the race would leave it.
  await r.secrets.create(r.accountId, { name: 'gone', value: 'gone-value-2' });
  await r.secrets.delete(r.accountId, 'gone');
  const e = await r.createEndpoint({ ...alwaysOne, env: { A: '{{ RUNPOD_SECRET_kept }}', B: '{{ RUNPOD_SECRET_gone }}' } });
  await r.runtime.tick();
  assert.equal(r.provider.started.length, 0);
  const report = r.runtime.crashReport(e.id);
  assert.equal(report?.lastReason, "the worker could not start: secret 'gone' referenced in the env does not exist (any more)");
  assert.ok(!JSON.stringify(report).includes('kept-value-1'));
});
