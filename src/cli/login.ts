// `gantry login` and `gantry logout`: remember a server and an API key in a file only its owner
// can read, so the everyday verbs need neither flags nor environment variables.
import { Command } from 'commander';
import { CliError, EXIT_USAGE } from './options.js';
import { ApiClient, ApiError } from './remote/api-client.js';
import { DEFAULT_URL, normalizeUrl } from './remote/connection.js';
import { loginFilePath, removeLogin, writeLogin } from './remote/config-file.js';
import { ask, askSecret, canPrompt, readStdinLine } from './remote/prompt.js';
import { print } from './output/print.js';

interface LoginFlags {
  url?: string;
  apiKey?: string;
  apiKeyStdin?: boolean;
}

async function chosenUrl(flags: LoginFlags): Promise<{ url: string; source: string }> {
  if (flags.url) return { url: normalizeUrl(flags.url, '--url'), source: '--url' };
  const suggested = process.env.GANTRY_URL || DEFAULT_URL;
  if (!canPrompt()) return { url: normalizeUrl(suggested, 'GANTRY_URL'), source: process.env.GANTRY_URL ? 'GANTRY_URL' : 'the default' };
  const answer = await ask(`Gantry server URL [${suggested}]: `);
  return { url: normalizeUrl(answer || suggested, 'the URL'), source: 'the URL given' };
}

async function chosenKey(flags: LoginFlags): Promise<{ key: string; source: string }> {
  if (flags.apiKey) return { key: flags.apiKey, source: '--api-key' };
  if (flags.apiKeyStdin) return { key: readStdinLine('API key'), source: 'stdin' };
  if (process.env.GANTRY_API_KEY) return { key: process.env.GANTRY_API_KEY, source: 'GANTRY_API_KEY' };
  if (!canPrompt()) throw new CliError('give the key with --api-key-stdin, --api-key or GANTRY_API_KEY', EXIT_USAGE);
  const key = await askSecret('API key: ');
  if (!key) throw new CliError('no API key given', EXIT_USAGE);
  return { key, source: 'the key typed' };
}

function loginCommand(): Command {
  return new Command('login')
    .description(`check a server URL and API key against the server and save them in ${loginFilePath()} (mode 0600)`)
    .option('--url <url>', `the Gantry server (asked for on a terminal; default ${DEFAULT_URL})`)
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--api-key <key>', 'the API key (visible in shell history: prefer --api-key-stdin or the prompt)')
    .action(async (flags: LoginFlags) => {
      const { url, source } = await chosenUrl(flags);
      const { key, source: keySource } = await chosenKey(flags);
      const client = new ApiClient({ url, urlSource: source, apiKey: key, apiKeySource: keySource });
      // 401 and an unreachable server fail here; a key that may not list endpoints (403) is still a key.
      await client.call('GET', '/v2/serverless').catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 403) return;
        throw error;
      });
      const file = loginFilePath();
      writeLogin({ url, apiKey: key }, file);
      print(`logged in to ${url}; saved in ${file}`);
    });
}

function logoutCommand(): Command {
  return new Command('logout').description('forget the saved server and API key').action(() => {
    const file = loginFilePath();
    print(removeLogin(file) ? `removed ${file}` : `not logged in (no ${file})`);
  });
}

export function loginCommands(): Command[] {
  return [loginCommand(), logoutCommand()];
}
