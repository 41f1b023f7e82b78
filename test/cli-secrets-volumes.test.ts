// gantry secrets and gantry volumes, run as real processes against a running server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';

let g: Live;
let env: Record<string, string>;

before(async () => {
  g = await startLive({ secretKey: randomBytes(32).toString('base64') });
  env = { GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey };
});
after(() => g.close());

test('a secret is stored from stdin, listed by name only, rotated and deleted; its value is never printed', async () => {
  const value = `hf_${randomBytes(12).toString('hex')}`;
  const created = await cli(['secrets', 'create', 'hf_token', '--value-stdin'], env, `${value}\n`);
  assert.equal(created.status, 0, created.stderr);
  assert.match(created.stdout, /\{\{ RUNPOD_SECRET_hf_token \}\}/);
  const listed = await cli(['secrets', 'list'], env);
  assert.match(listed.stdout, /^NAME\s+CREATED\s+UPDATED/);
  assert.match(listed.stdout, /hf_token/);
  const rotated = await cli(['secrets', 'rotate', 'hf_token', '--value', 'hf_new'], env);
  assert.equal(rotated.status, 0, rotated.stderr);
  const json = await cli(['secrets', 'list', '--json'], env);
  for (const out of [created.stdout, listed.stdout, rotated.stdout, json.stdout])
    assert.ok(!out.includes(value) && !out.includes('hf_new'));
  assert.equal((await cli(['secrets', 'delete', 'hf_token'], env)).status, 0);
  assert.match((await cli(['secrets', 'list'], env)).stdout, /no secrets/);
});

test("a volume is created with --quiet, listed, grown, refused a shrink with the server's reason, and deleted", async () => {
  const created = await cli(['volumes', 'create', '-q', '--name', 'weights', '--size', '20', '--data-center', 'LOCAL'], env);
  assert.equal(created.status, 0, created.stderr);
  const id = created.stdout.trim();
  assert.match((await cli(['volumes', 'list'], env)).stdout, new RegExp(`${id}\\s+weights\\s+20\\s+LOCAL`));
  assert.equal((await cli(['volumes', 'update', id, '--size', '30'], env)).status, 0);
  const shrink = await cli(['volumes', 'update', id, '--size', '10'], env);
  assert.equal(shrink.status, 1);
  assert.match(shrink.stderr, /size/);
  assert.equal((await cli(['volumes', 'delete', id], env)).status, 0);
});
