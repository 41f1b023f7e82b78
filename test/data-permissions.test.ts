// The embedded database holds secrets (endpoint env values, webhook URLs with tokens): its
// directory is created 0700 and its files 0600 whatever the umask, and `gantry doctor` warns
// when they are wider.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { CLI } from './support/processes.js';

const parent = mkdtempSync(join(tmpdir(), 'gantry-perms-'));
let previousUmask = 0;
before(() => {
  previousUmask = process.umask(0o022);
});
after(() => {
  process.umask(previousUmask);
  rmSync(parent, { recursive: true, force: true });
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
const run = (args: string[]) => spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env } });

test('the store creates its directory 0700 and the database, -wal and -shm 0600', async () => {
  const dir = join(parent, 'served', 'data');
  const file = join(dir, 'gantry.db');
  const store = new SqliteStore(file);
  try {
    assert.equal(modeOf(join(parent, 'served')), '700');
    assert.equal(modeOf(dir), '700');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(modeOf(path), '600', path);
  } finally {
    await store.close();
  }
});

test('gantry migrate creates them private too, and doctor warns once they are widened', () => {
  const dir = join(parent, 'migrated');
  assert.equal(run(['migrate', '--data-dir', dir]).status, 0);
  assert.equal(modeOf(dir), '700');
  assert.equal(modeOf(join(dir, 'gantry.db')), '600');
  const healthy = run(['doctor', '--data-dir', dir]);
  assert.match(healthy.stdout, /ok +permissions/);

  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'gantry.db'), 0o644);
  const wide = run(['doctor', '--data-dir', dir]);
  assert.equal(wide.status, 0, 'a warning, not a failure');
  assert.match(wide.stdout, /warn +permissions +.*migrated is 0755, .*gantry\.db is 0644/);
});
