// The README's settings section, made from the settings table, and the splice that puts it
// between the README's marker comments.
import { SETTINGS } from './table.js';
import type { Setting } from './setting.js';

export const SECTION_START = '<!-- settings:start -->';
export const SECTION_END = '<!-- settings:end -->';

export function settingsTable(): string {
  const rows = Object.values(SETTINGS).map((setting: Setting<unknown>) =>
    [code(setting.flag), code(setting.env), prose(setting.type.accepts), defaultCell(setting), prose(setting.description)].join(' | '),
  );
  return [
    '| flag | environment | value | default | what it sets |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** `readme` with the text between the markers replaced by the settings table. */
export function withSettingsSection(readme: string): string {
  const start = readme.indexOf(SECTION_START);
  const end = readme.indexOf(SECTION_END);
  if (start === -1 || end < start) throw new Error(`the README has no ${SECTION_START} ... ${SECTION_END} section`);
  return `${readme.slice(0, start + SECTION_START.length)}\n${settingsTable()}\n${readme.slice(end)}`;
}

/** A literal default is shown as the text to type; one in words (or derived) as prose. */
function defaultCell(setting: Setting<unknown>): string {
  if (setting.defaultMeans !== undefined) return prose(setting.defaultMeans);
  if (setting.default === undefined) return 'unset';
  return typeof setting.default === 'string' ? code(setting.default) : prose(setting.default.says);
}

function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** Plain text in a table cell: pipes would end the cell and <words> would vanish as HTML. */
function prose(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
