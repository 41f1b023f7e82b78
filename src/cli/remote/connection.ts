// Which server the everyday verbs talk to, and with which key: a flag wins over the environment,
// which wins over the file `gantry login` wrote. Each value remembers where it came from, so an
// error can say which one to fix.
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../options.js';
import { loginFilePath, readLogin, type SavedLogin } from './config-file.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ConnectionFlags {
  url?: string;
  apiKey?: string;
}

export interface Connection {
  url: string;
  /** Where the URL came from, for messages: `--url`, `GANTRY_URL`, the login file or the default. */
  urlSource: string;
  apiKey: string | undefined;
  apiKeySource: string | undefined;
}

type Env = Record<string, string | undefined>;

export function withConnection(command: Command): Command {
  return command
    .option('--url <url>', `the Gantry server (env GANTRY_URL; else gantry login's; default ${DEFAULT_URL})`)
    .option('--api-key <key>', "API key (env GANTRY_API_KEY; else gantry login's)");
}

export function resolveConnection(flags: ConnectionFlags, env: Env = process.env): Connection {
  const file = loginFilePath(env);
  // Read only when a value is not given otherwise: a broken file must not stand in the way of flags.
  let saved: SavedLogin | undefined;
  const pick = (flag: string | undefined, flagName: string, envName: string, fromFile: (login: SavedLogin) => string | undefined) => {
    if (flag) return { value: flag, source: flagName };
    if (env[envName]) return { value: env[envName], source: envName };
    const value = fromFile((saved ??= readLogin(file)));
    return value ? { value, source: file } : undefined;
  };
  const url = pick(flags.url, '--url', 'GANTRY_URL', (login) => login.url) ?? { value: DEFAULT_URL, source: 'the default' };
  const apiKey = pick(flags.apiKey, '--api-key', 'GANTRY_API_KEY', (login) => login.apiKey);
  return { url: normalizeUrl(url.value, url.source), urlSource: url.source, apiKey: apiKey?.value, apiKeySource: apiKey?.source };
}

/** An http(s) URL without a trailing slash; a bare `host:port` is taken as http. */
export function normalizeUrl(given: string, source: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new CliError(`${source} is not a URL: '${given}'`, EXIT_USAGE);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CliError(`${source} must be an http(s) URL, got '${given}'`, EXIT_USAGE);
  return parsed.href.replace(/\/+$/, '');
}
