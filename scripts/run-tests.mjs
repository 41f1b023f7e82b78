#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's own test runner, loading TypeScript through tsx.
// Node 20's `--test` does not expand globs, so the file list is built here.
// The suite runs twice: on the embedded SQLite store, then the files that use a store again on
// PostgreSQL when GANTRY_TEST_POSTGRES_URL is set (without it that pass is skipped, visibly). A
// file uses a store when it opened one in the SQLite pass (test/support/test-store.ts records it)
// or calls one of the helpers that open one.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return path.endsWith('.test.ts') ? [path] : [];
  });
}

function run(label, files, store, env = {}) {
  process.stdout.write(`\n# ${label}: ${files.length} files\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, GANTRY_TEST_STORE: store, ...env },
  });
  return result.status ?? 1;
}

const filters = process.argv.slice(2);
const files = findTests('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
// Without a SQLite pass to learn from (GANTRY_TEST_STORE=postgres), the helpers' names are all there is.
const STORE_HELPERS =
  /startHarness|startLive|useLiveOnDocker|openTestStore|useTestStore|startRuntimeRig|useTemplatesHarness|useGraphqlHarness/;
const callsStoreHelper = (file) => STORE_HELPERS.test(readFileSync(file, 'utf8'));
const storeUsersDir = mkdtempSync(join(tmpdir(), 'gantry-tests-'));
const storeUsers = join(storeUsersDir, 'store-users');

/** The test files that opened a store in the SQLite pass. */
function filesThatOpenedAStore() {
  if (!existsSync(storeUsers)) return new Set();
  return new Set(
    readFileSync(storeUsers, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((file) => relative('.', file)),
  );
}

const only = process.env.GANTRY_TEST_STORE;
let status = 0;
if (only !== 'postgres') status = run('store: sqlite', files, 'sqlite', { GANTRY_TEST_STORE_USERS: storeUsers });
if (only !== 'sqlite') {
  const opened = filesThatOpenedAStore();
  const storeFiles = files.filter((file) => opened.has(file) || callsStoreHelper(file));
  if (!process.env.GANTRY_TEST_POSTGRES_URL) {
    process.stdout.write(
      '\n# store: postgres SKIPPED - set GANTRY_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it\n',
    );
  } else if (storeFiles.length > 0) {
    status = run('store: postgres', storeFiles, 'postgres') || status;
  }
}
rmSync(storeUsersDir, { recursive: true, force: true });
process.exit(status);
