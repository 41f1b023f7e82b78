// One server per embedded store (decision 46): a second `gantry serve` on the same data directory
// is refused while the first runs, however the first later ends; the CLI's commands work beside a
// server, but do not migrate a file that an older server still serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli, serve } from './support/processes.js';
import { openSqliteFile } from '../src/store/sqlite/sqlite-file.js';
import { migrateSqlite, readMigrations } from '../src/store/sqlite/migrate.js';
import { migrationFileName } from '../src/store/shared/migrations.js';
import { ServerLock } from '../src/store/sqlite/server-lock.js';

const aDataDir = () => mkdtempSync(join(tmpdir(), 'gantry-lock-'));
const gantry = (args: string[]) => spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', timeout: 60_000 });

test('a second server on a data directory is refused while the first serves it, and starts once it stopped', async () => {
  const dataDir = aDataDir();
  const first = await serve(['--data-dir', dataDir]);
  try {
    const second = gantry(['serve', '--port', '0', '--data-dir', dataDir]);
    assert.equal(second.status, 1, second.stdout);
    assert.match(
      second.stderr,
      new RegExp(`^gantry: another Gantry server \\(pid ${first.child.pid}\\) is serving ${join(dataDir, 'gantry.db')}: stop it first`),
    );
    assert.doesNotMatch(second.stdout, /listening/);
    assert.match(runCli(['keys', 'list', '--data-dir', dataDir]), /admin/, 'a command works beside the server');
    assert.match(
      runCli(['doctor', '--data-dir', dataDir]),
      new RegExp(`ok +server +a Gantry server \\(pid ${first.child.pid}\\) is serving it`),
    );
  } finally {
    first.child.kill('SIGTERM');
    await once(first.child, 'exit');
  }
  assert.match(runCli(['doctor', '--data-dir', dataDir]), /warn +server +no server is serving this data directory/);
  const next = await serve(['--data-dir', dataDir]);
  next.child.kill('SIGTERM');
  await once(next.child, 'exit');
});

test('a server killed outright leaves nothing that stops the next one', async () => {
  const dataDir = aDataDir();
  const killed = await serve(['--data-dir', dataDir]);
  killed.child.kill('SIGKILL');
  await once(killed.child, 'exit');
  const next = await serve(['--data-dir', dataDir]);
  assert.match(next.output(), /listening on/);
  next.child.kill('SIGTERM');
  await once(next.child, 'exit');
});

test('a server starting while a command looks at the lock (as gantry doctor does) waits for it and starts', async () => {
  const file = join(aDataDir(), 'gantry.db');
  // Another process holds the lock for a moment, as a probe does.
  const probe = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(`${file}-server-lock`)}, { timeout: 0 });
      db.pragma('journal_mode = MEMORY');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE; COMMIT');
      process.stdout.write('held');
      setTimeout(() => db.close(), 150);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await once(probe.stdout!, 'data');
  const lock = ServerLock.take(file);
  lock.release();
  await once(probe, 'exit');
});

test('commands of a newer Gantry do not migrate a file an older server serves', () => {
  const dataDir = aDataDir();
  const file = join(dataDir, 'gantry.db');
  const migrations = readMigrations();
  const newest = migrations.at(-1)!;
  // The file as an older Gantry's server left it, that server still serving it.
  const db = openSqliteFile(file);
  migrateSqlite(
    db,
    migrations.filter((m) => m.version < newest.version),
  );
  const lock = ServerLock.take(file);
  const schemaVersion = () => (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number }).v;
  try {
    for (const args of [['migrate'], ['keys', 'list']]) {
      const refused = gantry([...args, '--data-dir', dataDir]);
      assert.equal(refused.status, 1, `gantry ${args.join(' ')}: ${refused.stdout}`);
      assert.match(
        refused.stderr,
        new RegExp(
          `^gantry: the Gantry server \\(pid ${process.pid}\\) serving ${file} runs an older Gantry: ` +
            `its schema lacks migration ${migrationFileName(newest)}\\. Stop it`,
        ),
      );
      assert.equal(schemaVersion(), newest.version - 1, 'nothing was applied');
    }
  } finally {
    lock.release();
  }
  assert.match(runCli(['migrate', '--data-dir', dataDir]), new RegExp(`applied ${migrationFileName(newest)}`));
  assert.equal(schemaVersion(), newest.version);
  db.close();
});
