// The file `gantry login` writes: the server's address and an API key, readable by its owner only.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT_USAGE } from '../options.js';

export interface SavedLogin {
  url?: string;
  apiKey?: string;
}

type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/gantry/config.json`, else `~/.config/gantry/config.json`. */
export function loginFilePath(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'gantry', 'config.json');
}

export function readLogin(file = loginFilePath()): SavedLogin {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file} is not valid JSON (${(error as Error).message}); fix it or run gantry logout`, EXIT_USAGE);
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new CliError(`${file} must hold a JSON object; fix it or run gantry logout`, EXIT_USAGE);
  const { url, apiKey } = parsed as Record<string, unknown>;
  return { ...(typeof url === 'string' ? { url } : {}), ...(typeof apiKey === 'string' ? { apiKey } : {}) };
}

/** Written to a new file then renamed over the old one, so the key is never readable by others, not even briefly. */
export function writeLogin(login: SavedLogin, file = loginFilePath()): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** True when there was a file to remove. */
export function removeLogin(file = loginFilePath()): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
