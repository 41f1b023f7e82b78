#!/usr/bin/env node
// Prints the built console's size, raw and gzipped, and fails past the budget: the console must
// stay small enough to load fast over a slow link.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 300 * 1024;
const dir = 'dist/console';

function files(path) {
  return readdirSync(path).flatMap((name) => {
    const full = join(path, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

let js = 0;
let total = 0;
let raw = 0;
for (const file of files(dir)) {
  const body = readFileSync(file);
  const gzipped = gzipSync(body, { level: 9 }).length;
  raw += body.length;
  total += gzipped;
  if (file.endsWith('.js')) js += gzipped;
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
process.stdout.write(`console: ${kb(raw)} raw, ${kb(total)} gzipped (JavaScript ${kb(js)} gzipped; budget ${kb(BUDGET_GZIP_BYTES)})\n`);
if (js > BUDGET_GZIP_BYTES) {
  process.stderr.write('console: the JavaScript is over its budget\n');
  process.exit(1);
}
