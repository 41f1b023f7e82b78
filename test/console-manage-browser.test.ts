// The console in a real Chromium against a real Gantry: a failed job retried from the requests
// list runs again, the theme toggle switches the theme and is remembered, a template is edited
// (a field error beside its field, then saved), a network volume grown, and an API key is created (its secret shown once
// and working) and revoked (refused at once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive } from './support/live.js';
import { browserSkipReason, useConsoleInBrowser } from './support/browser.js';

const skip = browserSkipReason();
// Workers are this test's own protocol-level calls: a job fails exactly when it says so.
const { g, page } = useConsoleInBrowser(skip, () => startLive({}, { name: 'flaky' }), { signIn: true });

test('Retry on a failed job puts it back in the queue, and a worker runs it to completion', { skip }, async () => {
  const id = (await g.queue('POST', '/run', { input: { attempt: 'flaky' } })).json.id as string;
  assert.equal((await g.worker('GET', '/job-take/w1')).json.id, id);
  await g.worker('POST', `/job-done/w1/${id}`, JSON.stringify({ error: 'out of luck' }), 'application/json');
  assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'FAILED');

  await page.getByRole('link', { name: 'flaky' }).click();
  await page.getByRole('link', { name: 'Requests' }).click();
  const row = page.locator(`tr[data-job="${id}"]`);
  await row.getByText('FAILED').waitFor();
  await row.getByRole('button', { name: `Retry job ${id}` }).click();
  await row.getByText('IN_QUEUE').waitFor();
  assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'IN_QUEUE');

  assert.equal((await g.worker('GET', '/job-take/w1')).json.id, id, 'the retried job is taken again');
  await g.worker('POST', `/job-done/w1/${id}`, JSON.stringify({ output: 'lucky' }), 'application/json');
  await row.getByText('COMPLETED').waitFor();
  assert.equal((await g.queue('GET', `/status/${id}`)).json.output, 'lucky');
});

test('the theme toggle switches the theme, and a reload keeps it', { skip }, async () => {
  const themeNow = () => page.evaluate(() => document.documentElement.dataset.theme ?? 'system');
  const toggle = page.getByRole('button', { name: /^Theme: / });
  const seen = [await themeNow()];
  for (let i = 0; i < 2; i++) {
    await toggle.click();
    seen.push(await themeNow());
  }
  assert.deepEqual(seen, ['system', 'dark', 'light']);
  assert.notEqual(
    await page.evaluate(() => getComputedStyle(document.body).backgroundColor),
    await (async () => {
      await toggle.click();
      await toggle.click();
      return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    })(),
    'dark and light backgrounds differ',
  );
  assert.equal(await themeNow(), 'dark');
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.equal(await themeNow(), 'dark', 'remembered across a reload');
  await page.getByRole('button', { name: 'Theme: dark. Change theme' }).waitFor();
});

test('editing a template shows the server error beside the field, then saves only what changed', { skip }, async () => {
  const created = await g.call('POST', '/v2/templates', {
    name: 'base-image',
    image: 'acme/base:1',
    serverless: true,
    env: { KEEP: 'me' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('button', { name: 'Edit base-image' }).click();
  const form = page.getByRole('form', { name: 'Edit template base-image' });
  await form.getByLabel('Name').fill('');
  await form.getByRole('button', { name: 'Save' }).click();
  const nameError = form.locator('#edit-name-error');
  await nameError.waitFor();
  assert.equal(await form.getByLabel('Name').getAttribute('aria-invalid'), 'true');
  assert.equal((await g.call('GET', `/v2/templates/${id}`)).json().name, 'base-image', 'nothing saved');

  await form.getByLabel('Name').fill('base-image');
  await form.getByLabel('Container image').fill('acme/base:2');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: 'acme/base:2' }).waitFor();
  const saved = (await g.call('GET', `/v2/templates/${id}`)).json();
  assert.deepEqual([saved.name, saved.image, saved.serverless, saved.env], ['base-image', 'acme/base:2', true, { KEEP: 'me' }]);
});

test('growing a network volume saves the new size; shrinking it shows why not beside the size', { skip }, async () => {
  const created = await g.call('POST', '/v2/network-volumes', { name: 'weights', size: 20, dataCenter: 'LOCAL' });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  await page.getByRole('link', { name: 'Network volumes' }).click();
  const row = page.getByRole('row').filter({ hasText: 'weights' });
  await row.getByRole('cell', { name: 'LOCAL' }).waitFor();
  await row.getByRole('button', { name: 'Edit weights' }).click();
  const form = page.getByRole('form', { name: 'Edit network volume weights' });
  await form.getByLabel('Size (GB)').fill('15');
  await form.getByRole('button', { name: 'Save' }).click();
  await form
    .locator('#edit-size-error')
    .getByText(/cannot shrink/)
    .waitFor();
  assert.equal((await g.call('GET', `/v2/network-volumes/${id}`)).json().size, 20, 'nothing saved');
  await form.getByLabel('Size (GB)').fill('30');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.waitFor({ state: 'detached' });
  await row.getByRole('cell', { name: '30', exact: true }).waitFor();
  const saved = (await g.call('GET', `/v2/network-volumes/${id}`)).json();
  assert.deepEqual([saved.name, saved.size], ['weights', 30]);
});

test('an API key is created with its secret shown once, and revoked after a confirmation', { skip }, async () => {
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'New API key' }).click();
  const form = page.getByRole('form', { name: 'New API key' });
  await form.getByLabel('Name').fill('dashboard');
  await form.getByLabel('Permission').selectOption('read');
  await form.getByRole('button', { name: 'Create' }).click();
  const shown = page.getByRole('status', { name: 'New API key' });
  const secret = (await shown.locator('code').innerText()).trim();
  assert.match(secret, /^gantry_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  await shown.getByRole('button', { name: 'Copy key' }).waitFor();
  assert.equal((await g.call('GET', '/v2/account/key', undefined, secret)).json().name, 'dashboard', 'the shown key works');
  await shown.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone from the page');
  const row = page.getByRole('row').filter({ hasText: 'dashboard' });
  await row.getByText('read').first().waitFor();

  page.once('dialog', (dialog) => void dialog.dismiss());
  await row.getByRole('button', { name: 'Revoke dashboard' }).click();
  assert.equal((await g.call('GET', '/v2/account/key', undefined, secret)).statusCode, 200, 'dismissed: still works');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Revoke dashboard' }).click();
  await row.getByText(/^revoked/).waitFor();
  assert.equal((await g.call('GET', '/v2/account/key', undefined, secret)).statusCode, 401);
  assert.equal(await row.getByRole('button', { name: 'Revoke dashboard' }).count(), 0);
});
