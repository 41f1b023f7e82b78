// The gantry command, run for real as a child process against a temporary data directory.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Command, CommanderError } from 'commander';
import { gantryProgram } from '../src/cli/program.js';
import { CLI, serve, stop } from './support/processes.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-cli-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

test('--help works on every verb', async () => {
  const top = run(['--help']);
  assert.equal(top.status, 0, top.stderr);
  assert.match(top.stdout, /Usage: gantry/);
  assert.equal(run(['no-such-verb']).status, 2);
  // Every verb's help from the program the command runs, in this process: a process per verb
  // would add only its start-up, a second each.
  const verbs = (command: Command, path: string[]): string[][] =>
    command.commands.flatMap((sub) => [[...path, sub.name()], ...verbs(sub, [...path, sub.name()])]);
  const all = verbs(gantryProgram(), []);
  assert.ok(all.length >= 30, `every verb is listed: ${all.map((v) => v.join(' ')).join(', ')}`);
  for (const verb of all) {
    let printed = '';
    const program = gantryProgram();
    const capture = (command: Command): void => {
      command.configureOutput({ writeOut: (text) => (printed += text), writeErr: (text) => (printed += text) });
      command.commands.forEach(capture);
    };
    capture(program);
    await assert.rejects(program.parseAsync(['node', 'gantry', ...verb, '--help']), (error: CommanderError) => error.exitCode === 0);
    assert.match(printed, new RegExp(`^Usage: gantry ${verb.join(' ')} `), verb.join(' '));
  }
});

test('serve prints the URL and the admin key on the first start only; the key works; SIGTERM exits 0', async () => {
  const first = await serve(['--data-dir', dataDir]);
  const key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  const res = await fetch(`${first.url}/v2/serverless`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { endpoints: [] });
  assert.equal(await stop(first.child), 0);

  const second = await serve(['--data-dir', dataDir]);
  assert.doesNotMatch(second.output(), /gantry_[a-z0-9]{12}_/);
  assert.match(second.output(), /gantry keys create/);
  const again = await fetch(`${second.url}/v2/serverless`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(again.status, 200, 'the database survived the restart');
  assert.equal(await stop(second.child), 0);
});

test('keys create prints only the key; list shows it without the secret; revoke disables it', async () => {
  const created = run(['keys', 'create', '--data-dir', dataDir, '--account', 'scripts', '--permission', 'read', '--expires-in', '30d']);
  assert.equal(created.status, 0, created.stderr);
  const lines = created.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const key = lines[0]!;
  assert.match(key, /^gantry_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  const id = key.split('_')[1]!;

  const listed = run(['keys', 'list', '--data-dir', dataDir, '--json']);
  const entry = JSON.parse(listed.stdout).find((k: { id: string }) => k.id === id);
  assert.equal(entry.account, 'scripts');
  assert.equal(entry.permission, 'read');
  assert.equal(entry.status, 'active');
  // The secret is everything after the id; base64url secrets may themselves contain '_'.
  assert.ok(!listed.stdout.includes(key.slice(`gantry_${id}_`.length)), 'no secret in the listing');

  const server = await serve(['--data-dir', dataDir]);
  const ok = await fetch(`${server.url}/v2/serverless`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.status, 200);
  assert.equal(run(['keys', 'revoke', '--data-dir', dataDir, key]).status, 0);
  const revoked = await fetch(`${server.url}/v2/serverless`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(revoked.status, 401);
  await stop(server.child);
  assert.equal(run(['keys', 'revoke', '--data-dir', dataDir, 'nosuchkeyid0']).status, 1);
});

test('keys create rejects bad options with exit code 2', () => {
  assert.equal(run(['keys', 'create', '--data-dir', dataDir, '--permission', 'admin']).status, 2);
  assert.equal(run(['keys', 'create', '--data-dir', dataDir, '--permission', 'endpoints']).status, 2);
  assert.equal(run(['keys', 'create', '--data-dir', dataDir, '--expires-in', 'soon']).status, 2);
  const nowhere = run(['keys', 'create', '--data-dir', dataDir, '--permission', 'endpoints', '--endpoints', 'nosuchendpoint']);
  assert.equal(nowhere.status, 2, 'a key limited to an endpoint the account lacks could never be used');
  assert.match(nowhere.stderr, /no endpoint nosuchendpoint in account 'default'/);
  assert.equal(nowhere.stdout, '');
  for (const expiry of [
    ['--expires-at', '2020-01-01T00:00:00Z'],
    ['--expires-in', '0m'],
  ]) {
    const expired = run(['keys', 'create', '--data-dir', dataDir, ...expiry]);
    assert.equal(expired.status, 2, expiry.join(' '));
    assert.match(expired.stderr, /which has passed/);
    assert.equal(expired.stdout, '', 'no key is printed');
  }
});

test('keys commands on a directory without a database say so and leave none behind', () => {
  const nowhere = join(mkdtempSync(join(tmpdir(), 'gantry-cli-nowhere-')), 'data');
  for (const verb of [['create'], ['list']]) {
    const res = run(['keys', ...verb, '--data-dir', nowhere]);
    assert.equal(res.status, 2, verb.join(' '));
    assert.match(res.stderr, /no Gantry database at .*gantry\.db/);
  }
  assert.equal(existsSync(nowhere), false, 'no database (nor directory) was made');
});

test('invalid configuration fails fast, naming the setting', () => {
  const badPort = run(['serve', '--data-dir', dataDir, '--port', 'abc']);
  assert.equal(badPort.status, 2);
  assert.match(badPort.stderr, /--port \(GANTRY_PORT\) must be an integer/);
  const badUrl = run(['serve', '--data-dir', dataDir], { GANTRY_PUBLIC_URL: 'ftp://example' });
  assert.equal(badUrl.status, 2);
  assert.match(badUrl.stderr, /--public-url \(GANTRY_PUBLIC_URL\) must be an absolute http\(s\) URL/);
  const flagWins = run(['serve', '--data-dir', dataDir, '--port', 'x'], { GANTRY_PORT: '8080' });
  assert.match(flagWins.stderr, /got 'x'/, 'flags override the environment');
});

test('a port already in use is a clear error', async () => {
  const server = await serve(['--data-dir', dataDir]);
  try {
    const port = new URL(server.url).port;
    // Another data directory: one already served would be refused before the port is tried.
    const res = run(['serve', '--data-dir', mkdtempSync(join(tmpdir(), 'gantry-cli-port-')), '--port', port]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, new RegExp(`port ${port} on 127.0.0.1 is already in use`));
  } finally {
    await stop(server.child);
  }
});

test('a first start that cannot listen makes no admin key, so the next start still shows one', async () => {
  const fresh = mkdtempSync(join(tmpdir(), 'gantry-cli-busy-'));
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const busy = run(['serve', '--data-dir', fresh, '--port', String((holder.address() as AddressInfo).port)]);
    assert.equal(busy.status, 1);
    assert.match(busy.stderr, /already in use/);
    const next = await serve(['--data-dir', fresh]);
    assert.match(next.output(), /^\s+gantry_[a-z0-9]{12}_\S{43}$/m, 'the admin key is shown on the first start that listens');
    assert.equal(await stop(next.child), 0);
  } finally {
    holder.close();
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('migrate reports the schema up to date, and applies the schema to a new directory', () => {
  assert.match(run(['migrate', '--data-dir', dataDir]).stdout, /schema up to date/);
  const fresh = mkdtempSync(join(tmpdir(), 'gantry-cli-fresh-'));
  assert.match(run(['migrate', '--data-dir', fresh]).stdout, /applied 001_foundation/);
  rmSync(fresh, { recursive: true, force: true });
});

test('doctor fails on a missing database and passes on a migrated one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-doctor-'));
  try {
    const missing = run(['doctor', '--data-dir', dir]);
    assert.equal(missing.status, 1);
    assert.match(missing.stdout, /FAIL +database +.*does not exist/);
    assert.equal(run(['migrate', '--data-dir', dir]).status, 0);
    const healthy = run(['doctor', '--data-dir', dir]);
    assert.equal(healthy.status, 0, healthy.stdout);
    assert.match(healthy.stdout, /ok +schema +up to date/);
    assert.match(healthy.stdout, /journal wal/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
