// `gantry serve`: starts the server, prints where it listens (and the admin key on the very
// first start), and shuts down gracefully on SIGTERM or SIGINT, within --worker-stop-grace-ms
// plus a few seconds. A second signal exits at once, killing the workers first.
import { Command } from 'commander';
import type { ConfigFlags } from '../config.js';
import { SETTINGS } from '../settings/table.js';
import { helpLine } from '../settings/setting.js';
import { CliError, configFrom, EXIT_USAGE } from './options.js';
import { CatalogError } from '../catalog/catalog.js';
import { CapacityError } from '../catalog/capacity.js';

/** The longest a second signal waits for the workers to be killed before exiting anyway. */
const KILL_WORKERS_LIMIT_MS = 2000;

function banner(url: string, adminKey: string | undefined, store: string): string {
  const lines = [`Gantry is listening on ${url}`];
  if (adminKey) {
    lines.push(
      '',
      'This is the first start: an admin API key was created. It is shown only this once;',
      'only its hash is stored. Keep it somewhere safe:',
      '',
      `  ${adminKey}`,
      '',
      'Try it:',
      `  export GANTRY_URL=${url} GANTRY_API_KEY=${adminKey}`,
      '  npx gantry endpoints list',
      `  curl -s ${url}/v2/serverless -H "Authorization: Bearer $GANTRY_API_KEY"`,
    );
  } else {
    // Not the first start: its keys exist. Say how to make one without a key, for whoever lost theirs.
    lines.push(`An API key is needed to call it; a new one is made on this machine with: gantry keys create ${store}`);
  }
  return `${lines.join('\n')}\n`;
}

export function serveCommand(): Command {
  const command = new Command('serve').description('start the Gantry server');
  for (const setting of Object.values(SETTINGS)) command.option(setting.flag, helpLine(setting));
  command.action(async (flags: ConfigFlags) => {
    const config = configFrom(flags);
    // Loaded here, not at the top: every other verb would pay for the whole server at start (decision 38).
    const { startServer } = await import('../server.js');
    const server = await startServer(config).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new CliError(`port ${config.port} on ${config.host} is already in use`);
      if (error.code === 'EACCES') throw new CliError(`not allowed to listen on ${config.host}:${config.port}`);
      if (error instanceof CatalogError || error instanceof CapacityError) throw new CliError(error.message, EXIT_USAGE);
      throw error;
    });
    process.stdout.write(
      banner(server.url, server.adminKey?.token, config.databaseUrl ? '--database <url>' : `--data-dir ${config.dataDir}`),
    );
    let signals = 0;
    const shutdown = (signal: string) => {
      signals++;
      if (signals > 1) {
        process.stderr.write(`${signal} again: exiting now\n`);
        // Killing takes a moment (their exits are awaited), never long enough to block the exit.
        const giveUp = new Promise((done) => setTimeout(done, KILL_WORKERS_LIMIT_MS));
        void Promise.race([server.killWorkersNow().catch(() => undefined), giveUp]).then(() => process.exit(1));
        return;
      }
      server.app.log.info({ signal }, 'shutting down');
      server.close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`shutdown failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  });
  return command;
}
