// The README's settings section is made from the settings table; this fails when someone
// changed one without the other (`npm run docs:settings` rewrites the section).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { withSettingsSection } from '../src/settings/markdown.js';
import { SETTINGS } from '../src/settings/table.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('the README settings section is what the settings table makes', () => {
  assert.equal(readme, withSettingsSection(readme), 'README.md is stale: run `npm run docs:settings`');
});

test('every setting is in the README with its flag and environment variable', () => {
  for (const setting of Object.values(SETTINGS)) {
    assert.ok(readme.includes(`\`${setting.flag}\` | \`${setting.env}\``), `${setting.flag} is missing`);
  }
});
