// The console in a real Chromium against a real Gantry, where a page could act on the wrong
// thing: an endpoint link crafted to climb out of its id, a load-balancing endpoint (no queue,
// so no requests, playground or health), and a cancelled job, which cannot be retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive } from './support/live.js';
import { browserSkipReason, useConsoleInBrowser } from './support/browser.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

const skip = browserSkipReason();
const { g, page } = useConsoleInBrowser(skip, () => startLive({}, { name: 'parked', workers: { min: 0, max: 0 } }), { signIn: true });

test('an endpoint link crafted to reach another resource reaches none', { skip }, async () => {
  const template = await g.call('POST', '/v2/templates', { name: 'not-an-endpoint', image: 'acme/worker:1' });
  assert.equal(template.statusCode, 201, template.body);
  const templateId = template.json().id as string;
  const called: string[] = [];
  page.on('request', (request) => called.push(`${request.method()} ${new URL(request.url()).pathname}`));
  await page.goto(`${g.url}/console/endpoints/..%2Ftemplates%2F${templateId}`);
  await page
    .getByRole('alert')
    .filter({ hasText: /not found/i })
    .waitFor();
  assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0, 'nothing was loaded to delete');
  assert.ok(!called.some((call) => call.includes('/v2/templates/')), called.join('\n'));
  assert.equal((await g.call('GET', `/v2/templates/${templateId}`)).statusCode, 200);
});

test('a load-balancing endpoint shows its workers, not queue tabs, and is listed with a status', { skip }, async () => {
  const created = await g.call(
    'POST',
    '/v2/serverless',
    queueEndpointBody('balanced', {
      type: 'LOAD_BALANCER',
      scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
      workers: { min: 0, max: 0 },
    }),
  );
  assert.equal(created.statusCode, 201, created.body);
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  await page.goto(`${g.url}/console/`);
  const row = page.getByRole('row').filter({ hasText: 'balanced' });
  await row.getByText('scaled to zero').waitFor();
  await row.getByRole('link', { name: 'balanced' }).click();
  const tabs = page.getByRole('navigation', { name: 'Endpoint' });
  await tabs.getByRole('link', { name: 'Workers' }).waitFor();
  assert.deepEqual(await tabs.getByRole('link').allInnerTexts(), ['Overview', 'Workers', 'Releases', 'Metrics']);
  assert.deepEqual(failed, [], 'no call the endpoint cannot answer');
});

test('a cancelled job offers neither Cancel nor Retry', { skip }, async () => {
  const id = (await g.queue('POST', '/run', { input: { n: 1 } })).json.id as string;
  assert.equal((await g.queue('POST', `/cancel/${id}`)).json.status, 'CANCELLED');
  await page.goto(`${g.url}/console/`);
  await page.getByRole('link', { name: 'parked' }).click();
  await page.getByRole('link', { name: 'Requests' }).click();
  const row = page.locator(`tr[data-job="${id}"]`);
  await row.getByText('CANCELLED').waitFor();
  assert.equal(await row.getByRole('button', { name: /^(Retry|Cancel) job/ }).count(), 0);
});

test('a very long endpoint name wraps: neither its page nor the list scrolls sideways', { skip }, async () => {
  const name = `long-${'y'.repeat(180)}`;
  const created = await g.call('POST', '/v2/serverless', queueEndpointBody(name, { workers: { min: 0, max: 0 } }));
  assert.equal(created.statusCode, 201, created.body);
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.goto(`${g.url}/console/`);
  await page.getByRole('link', { name }).waitFor();
  assert.ok((await overflow()) <= 0, `the list is ${await overflow()} px wider than the window`);
  await page.goto(`${g.url}/console/endpoints/${created.json().id as string}`);
  await page.getByRole('heading', { name }).waitFor();
  assert.ok((await overflow()) <= 0, `the page is ${await overflow()} px wider than the window`);
});
