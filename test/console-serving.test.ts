// How the console is served: browsers asking for / are sent to it, API clients get what they got
// before; the page is revalidated each time, hashed assets are cached for good, nothing escapes
// the console's folder.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { startHarness, type Harness } from './support/harness.js';
import { consoleRoutes, prefersHtml } from '../src/http/console.js';
import { installProblemHandlers } from '../src/http/errors.js';

let h: Harness;
let app: FastifyInstance;
let dir: string;

before(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), 'gantry-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'not served');
  app = Fastify();
  installProblemHandlers(app);
  await app.register(consoleRoutes(dir));
});
after(async () => {
  await app.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a browser asking for / is redirected to the console', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, '/console/');
});

test('an API client asking for / still gets the not-found problem', async () => {
  for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/html;q=0.5']) {
    const res = await h.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
    assert.equal(res.statusCode, 404, String(accept));
    assert.match(String(res.headers['content-type']), /problem\+json/);
  }
  const post = await h.app.inject({ method: 'POST', url: '/', headers: { accept: 'text/html' } });
  assert.equal(post.statusCode, 404, 'only GET and HEAD are redirected');
});

test('the page is never cached stale, and every console path is the page', async () => {
  for (const url of ['/console', '/console/', '/console/endpoints/abc/metrics']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
  }
});

test('hashed assets are cached for good, with their type', async () => {
  const res = await app.inject({ method: 'GET', url: '/console/assets/index-abc123.js' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(String(res.headers['content-type']), /^text\/javascript/);
  assert.equal((await app.inject({ method: 'GET', url: '/console/assets/missing.js' })).statusCode, 404);
});

test('nothing outside the assets folder is served', async () => {
  for (const url of ['/console/assets/..%2Fsecret.txt', '/console/assets/%2e%2e%2fsecret.txt', '/console/assets/.hidden']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 404, url);
    assert.doesNotMatch(res.body, /not served/);
  }
});

test('the console needs no key to load; the API behind it still does', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/v2/serverless' });
  assert.equal(res.statusCode, 401);
});

test('Accept negotiation: HTML must be preferred, not merely accepted', () => {
  assert.equal(prefersHtml('text/html'), true);
  assert.equal(prefersHtml('text/html;q=0.9, application/json'), false);
  assert.equal(prefersHtml('*/*'), false);
  assert.equal(prefersHtml(undefined), false);
  assert.equal(prefersHtml('text/html;q=0'), false);
});
