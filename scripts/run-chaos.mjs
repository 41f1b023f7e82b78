#!/usr/bin/env node
// Runs the reliability suite, test/chaos/*.chaos.ts, with node's own test runner through tsx.
// These files end in .chaos.ts so `npm test` (which runs *.test.ts) never picks them up: they
// kill processes and cut database connections, and take minutes rather than seconds.
// One file at a time: every scenario measures recovery times, which a second scenario competing
// for the same two cores would distort. Arguments filter files by name (`npm run test:chaos -- fuzz`).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const dir = join('test', 'chaos');
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.chaos.ts'))
  .map((name) => join(dir, name))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (files.length === 0) {
  process.stderr.write(`no chaos scenario matches ${filters.join(', ')}\n`);
  process.exit(1);
}
if (!process.env.GANTRY_TEST_POSTGRES_URL) {
  process.stdout.write('# GANTRY_TEST_POSTGRES_URL is not set: the PostgreSQL scenarios will be skipped\n');
}
process.stdout.write(`# chaos: ${files.length} scenario files\n`);
const started = Date.now();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
process.stdout.write(`# chaos: finished in ${Math.round((Date.now() - started) / 1000)} s\n`);
process.exit(result.status ?? 1);
