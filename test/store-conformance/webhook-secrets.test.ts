// Webhook secrets: kept per endpoint as sealed text, set once unless replaced, handed to the
// outbox with each claimed delivery, and gone with the endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, anAccount, anEndpoint } from './records.js';

const owner = anAccount();
const suite = useTestStore(async (store) => {
  await store.ensureAccount(owner);
});

async function anEndpointId(): Promise<string> {
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint);
  return endpoint.id;
}

test(`[${TEST_STORE}] an endpoint has no secret until one is set; the first set wins, a replace does not`, async () => {
  const id = await anEndpointId();
  assert.equal(await suite.store.webhookSecrets.get(id), undefined);
  assert.equal(await suite.store.webhookSecrets.setIfMissing(id, 'sealed-1'), 'sealed-1');
  assert.equal(await suite.store.webhookSecrets.setIfMissing(id, 'sealed-2'), 'sealed-1', 'a second maker gets the secret kept');
  assert.equal(await suite.store.webhookSecrets.get(id), 'sealed-1');
  assert.equal(await suite.store.webhookSecrets.replace(id, 'sealed-3'), true);
  assert.equal(await suite.store.webhookSecrets.get(id), 'sealed-3');
});

test(`[${TEST_STORE}] an unknown or deleted endpoint has no secret and takes none`, async () => {
  assert.equal(await suite.store.webhookSecrets.setIfMissing('ep-missing', 'sealed'), undefined);
  assert.equal(await suite.store.webhookSecrets.replace('ep-missing', 'sealed'), false);
  const id = await anEndpointId();
  await suite.store.webhookSecrets.setIfMissing(id, 'sealed');
  await suite.store.deleteEndpoint(owner.id, id);
  assert.equal(await suite.store.webhookSecrets.get(id), undefined);
});

test(`[${TEST_STORE}] a claimed delivery carries its endpoint's sealed secret, or null when there is none`, async () => {
  const withSecret = await anEndpointId();
  const without = await anEndpointId();
  await suite.store.webhookSecrets.setIfMissing(withSecret, 'sealed-for-delivery');
  const jobs = [aJob(withSecret, { webhook: 'https://example.test/hook' }), aJob(without, { webhook: 'https://example.test/hook' })];
  for (const job of jobs) {
    await suite.store.jobs.insert(job);
    await suite.store.jobs.complete(job.id, ['IN_QUEUE'], { status: 'COMPLETED', output: '"ok"', error: null, completedAt: 1 });
  }
  // Far past every other test's claims, so only deliveries due by then are seen; these two among them.
  const due = await suite.store.jobs.claimWebhooks(Number.MAX_SAFE_INTEGER - 1e12, 1000, 1000);
  const secretOf = (jobId: string) => due.find((d) => d.job.id === jobId)?.sealedSecret;
  assert.equal(secretOf(jobs[0]!.id), 'sealed-for-delivery');
  assert.equal(secretOf(jobs[1]!.id), null);
});
