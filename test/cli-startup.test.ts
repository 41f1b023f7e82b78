// The gantry command starts quickly: help and the verbs that talk to a running server load
// neither the server nor a store (decision 38). Loading them made every `gantry endpoints list`
// wait about a second before it did anything. The modules a run resolves are recorded by a
// preload, so the test sees what was loaded rather than how long it took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RECORDER = join(import.meta.dirname, 'fixtures/cli/record-loads.mjs');
const HEAVY = /\/src\/server\.ts$|\/src\/store\/(sqlite|postgres)\/|\/node_modules\/(fastify|better-sqlite3|pg|dockerode|graphql)\//;

/** Runs `gantry <args>` and answers the modules it resolved that a quick start must not load. */
function heavyLoads(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-cli-loads-'));
  const record = join(dir, 'loads.txt');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', RECORDER, 'src/cli/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, RECORD_LOADS_TO: record },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `gantry ${args.join(' ')}: ${run.stderr}`);
  return [...new Set(readFileSync(record, 'utf8').split('\n'))].filter((url) => HEAVY.test(url));
}

test('help and the verbs that talk to a server load neither the server nor a store', () => {
  for (const args of [['--help'], ['endpoints', 'list', '--help'], ['jobs', 'run', '--help'], ['serve', '--help'], ['keys', '--help']]) {
    assert.deepEqual(heavyLoads(args), [], `gantry ${args.join(' ')}`);
  }
});

test('a verb that works on the store loads it when it runs', () => {
  const loads = heavyLoads(['migrate', '--data-dir', mkdtempSync(join(tmpdir(), 'gantry-cli-migrate-'))]);
  assert.ok(
    loads.some((url) => url.includes('/node_modules/better-sqlite3/')),
    `migrate loaded SQLite's driver: ${loads.join(', ')}`,
  );
});
