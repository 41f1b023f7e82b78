// Writes the README's settings section from the settings table (src/settings/table.ts).
// With --check it writes nothing and exits 1 when the section is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsSection } from '../src/settings/markdown.js';

const README = new URL('../README.md', import.meta.url);
const current = readFileSync(README, 'utf8');
const wanted = withSettingsSection(current);

if (process.argv.includes('--check')) {
  if (current !== wanted) {
    process.stderr.write('README.md: the settings section is stale; run `npm run docs:settings`\n');
    process.exit(1);
  }
} else if (current !== wanted) {
  writeFileSync(README, wanted);
  process.stdout.write('README.md: settings section rewritten\n');
}
