// gantry login/logout and where the CLI finds its server and key: flag over environment over
// the login file, which only its owner may read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';
import { reservePort } from '../src/reserve-port.js';

let g: Live;
let config: string;
let file: string;

before(async () => {
  g = await startLive();
  config = mkdtempSync(join(tmpdir(), 'gantry-cli-config-'));
  file = join(config, 'gantry', 'config.json');
});
after(async () => {
  rmSync(config, { recursive: true, force: true });
  await g.close();
});

test('login checks the key, saves it readable by its owner only; the verbs then need no flags; logout forgets it', async () => {
  const home = { XDG_CONFIG_HOME: config };
  const refused = await cli(['login', '--url', g.url, '--api-key-stdin'], home, 'gantry_aaaaaaaaaaaa_wrong\n');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /refused the API key from stdin \(401/);
  assert.equal(existsSync(file), false, 'a refused key is not saved');

  const login = await cli(['login', '--url', g.url, '--api-key-stdin'], home, `${g.adminKey}\n`);
  assert.equal(login.status, 0, login.stderr);
  assert.equal(login.stdout.trim(), `logged in to ${g.url}; saved in ${file}`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { url: g.url, apiKey: g.adminKey });

  const listed = await cli(['endpoints', 'list', '--json'], home);
  assert.equal(listed.status, 0, listed.stderr);
  assert.ok(JSON.parse(listed.stdout).endpoints.some((e: { id: string }) => e.id === g.endpointId));

  const logout = await cli(['logout'], home);
  assert.equal(logout.stdout.trim(), `removed ${file}`);
  assert.equal(existsSync(file), false);
  assert.equal((await cli(['endpoints', 'list'], home)).status, 2, 'no key any more');
});

test('a flag wins over the environment, which wins over the login file', async () => {
  const home = { XDG_CONFIG_HOME: config };
  assert.equal((await cli(['login', '--url', g.url, '--api-key', g.adminKey], home)).status, 0);
  const closed = await reservePort('127.0.0.1');
  await closed.release();
  const nowhere = `http://127.0.0.1:${closed.port}`;

  const envOverFile = await cli(['endpoints', 'list'], { ...home, GANTRY_URL: nowhere });
  assert.equal(envOverFile.status, 1);
  assert.match(envOverFile.stderr, new RegExp(`cannot reach Gantry at ${nowhere} \\(GANTRY_URL\\)`));

  const flagOverEnv = await cli(['endpoints', 'list', '--url', g.url], { ...home, GANTRY_URL: nowhere });
  assert.equal(flagOverEnv.status, 0, flagOverEnv.stderr);

  const keyFromEnv = await cli(['endpoints', 'list'], { ...home, GANTRY_API_KEY: 'gantry_aaaaaaaaaaaa_wrong' });
  assert.match(keyFromEnv.stderr, /refused the API key from GANTRY_API_KEY/);
  const keyFromFile = await cli(['endpoints', 'list', '--api-key', 'gantry_aaaaaaaaaaaa_wrong'], home);
  assert.match(keyFromFile.stderr, /refused the API key from --api-key/);
  await cli(['logout'], home);
});

test('a broken login file stands in the way only of a value it would have given', async () => {
  const broken = mkdtempSync(join(tmpdir(), 'gantry-cli-broken-'));
  try {
    const home = { XDG_CONFIG_HOME: broken };
    mkdirSync(join(broken, 'gantry'));
    writeFileSync(join(broken, 'gantry', 'config.json'), '{bad');
    const flags = await cli(['endpoints', 'list', '--url', g.url, '--api-key', g.adminKey], home);
    assert.equal(flags.status, 0, flags.stderr);
    const env = await cli(['endpoints', 'list'], { ...home, GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey });
    assert.equal(env.status, 0, env.stderr);
    const needed = await cli(['endpoints', 'list', '--url', g.url], home);
    assert.equal(needed.status, 2);
    assert.match(needed.stderr, /config\.json is not valid JSON/);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
});
