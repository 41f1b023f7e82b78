// The console in a real Chromium against a real Gantry running the example worker as processes:
// sign in, create an endpoint (a field error shown beside its field, then fixed), run a job from
// the playground, watch the worker and its log, cancel a queued job, read-only keys, sign out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive } from './support/live.js';
import { browserSkipReason, screenshotPath, STEP_MS, useConsoleInBrowser } from './support/browser.js';

const skip = browserSkipReason();
const ECHO_COMMAND = JSON.stringify({ entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/echo-worker.ts'] });

// The endpoint startLive makes keeps no workers (max 0): its jobs stay queued, to be cancelled.
const { g, browser, page } = useConsoleInBrowser(skip, () =>
  startLive(
    { workerProvider: 'process', scaleIntervalMs: '100', workerPingIntervalMs: '200', workerStopGraceMs: '1000' },
    { name: 'parked', workers: { min: 0, max: 0 } },
  ),
);

const shot = async (name: string) => {
  const path = screenshotPath(name);
  if (path) await page.screenshot({ path, fullPage: false });
};

test('a browser asking for / is sent to the console and signs in with an API key', { skip }, async () => {
  await page.goto(`${g.url}/`);
  assert.equal(new URL(page.url()).pathname, '/console/');
  await page.getByLabel('API key').fill('gantry_nope_nope');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /not valid|malformed/ })
    .waitFor();
  await page.getByLabel('API key').fill(g.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
  await page.getByRole('link', { name: 'parked' }).waitFor();
  assert.equal(
    await page.evaluate(() => localStorage.length === 0 || !JSON.stringify(localStorage).includes('gantry_')),
    true,
    'the key is not in localStorage',
  );
});

test("creating an endpoint shows the server's error beside the field, and succeeds once it is fixed", { skip }, async () => {
  await page.getByRole('link', { name: 'New endpoint' }).click();
  await page.getByLabel('Name', { exact: true }).fill('echo');
  await page.getByLabel('Container image').fill('local/echo');
  await page.getByLabel('Command').fill(ECHO_COMMAND);
  await page.getByLabel('Idle timeout (seconds)').fill('5000');
  await page.getByLabel('Maximum workers').fill('1');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const idle = page.getByLabel('Idle timeout (seconds)');
  await page.locator('#f-workers-idleTimeout-error').waitFor();
  assert.match(await page.locator('#f-workers-idleTimeout-error').innerText(), /3600/);
  assert.equal(await idle.getAttribute('aria-invalid'), 'true');
  assert.equal(await idle.getAttribute('aria-describedby'), 'f-workers-idleTimeout-error', 'the error is tied to its field');
  await idle.fill('5');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await page.getByRole('heading', { name: 'echo' }).waitFor();
  await page.getByText('Request URLs').waitFor();
});

test('the playground runs a job on the example worker and shows it complete', { skip }, async () => {
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByLabel('Request body').fill('{"input": {"sleepMs": 200, "echo": {"greeting": "hello from the console"}}}');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.result-line').getByText('COMPLETED').waitFor({ timeout: 60_000 });
  assert.match(await page.locator('.result-output').innerText(), /hello from the console/);
  await shot('console-playground.png');
  // A streaming job: its chunks show as they come.
  await page.getByLabel('Request body').fill('{"input": {"stream": 3, "chunk": "tok", "sleepMs": 100}}');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.result-line').getByText('COMPLETED').waitFor({ timeout: 30_000 });
  await page.getByRole('heading', { name: 'Stream' }).waitFor();
  assert.match(await page.locator('section[aria-label="Result"] pre').last().innerText(), /"i":2/);
  // runsync answers once the job is done; its stream is shown all the same.
  await page.locator('#send-mode').selectOption('runsync');
  await page.getByLabel('Request body').fill('{"input": {"stream": 2, "chunk": "sync"}}');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('section[aria-label="Result"] pre').last().filter({ hasText: '"text":"sync"' }).waitFor({ timeout: 30_000 });
  assert.match(await page.locator('section[aria-label="Result"] pre').last().innerText(), /"i":1/);
  await page.locator('#send-mode').selectOption('run');
});

test('the worker appears with its state and its log follows live', { skip }, async () => {
  await page.getByRole('link', { name: 'Workers' }).click();
  const row = page.locator('tr[data-worker]').first();
  await row.waitFor();
  await row.getByRole('button', { name: 'Log' }).click();
  await page
    .locator('.log')
    .getByText(/started: /)
    .waitFor();
});

test('requests list the finished jobs, and the metrics tab draws its charts', { skip }, async () => {
  // A few more jobs, so the charts have something to show.
  const endpointId = new URL(page.url()).pathname.split('/')[3]!;
  const ids: string[] = [];
  for (const sleepMs of [50, 120, 250, 400]) {
    ids.push((await g.call('POST', `/v2/${endpointId}/run`, { input: { sleepMs, echo: sleepMs } })).json().id);
  }
  for (const id of ids) await g.call('GET', `/v2/${endpointId}/status-sync/${id}?wait=20000`);
  await page.getByRole('link', { name: 'Requests' }).click();
  await page.locator('tr[data-job]').getByText('COMPLETED').first().waitFor();
  await page.locator(`tr[data-job="${ids[0]}"]`).getByRole('button', { name: ids[0] }).click();
  const detail = page.getByRole('region', { name: `Job ${ids[0]}` });
  await detail.getByRole('heading', { name: 'Input' }).waitFor();
  assert.match(await detail.locator('pre').first().innerText(), /"sleepMs": 50/);
  await detail.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('link', { name: 'Metrics' }).click();
  await page.locator('.chart canvas').first().waitFor();
  assert.equal(await page.locator('figure.chart').count(), 5);
  await page.getByRole('img', { name: 'Workers by state over time' }).waitFor();
  await page.getByLabel('Range').selectOption('Last 15 minutes');
  await page.locator('.chart canvas').first().waitFor();
  await shot('console-metrics.png');
});

test('a queued job is cancelled from the requests list', { skip }, async () => {
  const id = (await g.queue('POST', '/run', { input: { echo: 'never runs' } })).json.id as string;
  await page.getByRole('link', { name: 'Endpoints' }).click();
  await page.getByRole('link', { name: 'parked' }).click();
  await page.getByRole('link', { name: 'Requests' }).click();
  const row = page.locator(`tr[data-job="${id}"]`);
  await row.getByText('IN_QUEUE').waitFor();
  await row.getByRole('button', { name: `Cancel job ${id}` }).click();
  await row.getByText('CANCELLED').waitFor();
  assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'CANCELLED');
  await page.getByRole('link', { name: 'Endpoints' }).click();
  await page.getByRole('link', { name: 'echo' }).waitFor();
  await shot('console-endpoints.png');
});

test('a read-only key sees the console without the buttons that write', { skip }, async () => {
  const reader = await g.newKey({ name: 'viewer', permission: 'read' });
  const other = await browser.context.newPage();
  other.setDefaultTimeout(STEP_MS);
  await other.goto(`${g.url}/console/`);
  await other.getByLabel('API key').fill(reader);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await other.getByRole('link', { name: 'parked' }).click();
  await other.getByText('read-only').waitFor();
  assert.equal(await other.getByRole('link', { name: 'New endpoint' }).count(), 0);
  assert.equal(await other.getByRole('button', { name: 'Delete' }).count(), 0);
  await other.getByRole('link', { name: 'Playground' }).click();
  assert.equal(await other.getByRole('button', { name: 'Send' }).isDisabled(), true);
  await other.close();
});

test('at phone width the pages fit the screen: nothing scrolls sideways but tables inside their frame', { skip }, async () => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.getByRole('link', { name: 'echo' }).click();
  for (const tab of ['Overview', 'Requests', 'Playground', 'Workers', 'Metrics']) {
    await page.getByRole('link', { name: tab, exact: true }).click();
    await page.locator('.tab-body').waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, `${tab} fits 390 px`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.getByRole('link', { name: 'Endpoints' }).click();
});

test('an edit saves what changed, and deleting asks first', { skip }, async () => {
  await page.getByRole('link', { name: 'echo' }).click();
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Maximum workers').fill('2');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('0–2, idle timeout 5 s').waitFor();
  const endpointId = new URL(page.url()).pathname.split('/')[3]!;
  const releases = (await g.call('GET', `/v2/serverless/${endpointId}/releases`)).json();
  assert.equal(releases.endpointVersion, 1, 'a change of max workers is no new release: nothing else was sent');

  await page.getByRole('link', { name: 'Endpoints' }).click();
  await page.getByRole('link', { name: 'parked' }).click();
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('button', { name: 'Delete' }).click();
  assert.equal((await g.call('GET', `/v2/serverless/${g.endpointId}`)).statusCode, 200, 'dismissed: still there');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
  assert.equal((await g.call('GET', `/v2/serverless/${g.endpointId}`)).statusCode, 404);
});

test('a lost connection shows a banner, and the console recovers when calls get through again', { skip }, async () => {
  await page.route('**/v2/**', (route) => route.abort('connectionrefused'));
  const banner = page.getByRole('status').filter({ hasText: 'Connection to the server lost' });
  await banner.waitFor();
  await page.unroute('**/v2/**');
  await banner.waitFor({ state: 'detached', timeout: 40_000 });
  await page.getByRole('link', { name: 'echo' }).waitFor();
});

test('signing out forgets the key', { skip }, async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await page.reload();
  await page.getByLabel('API key').waitFor();
});
