// `gantry serve`: starts the server, prints where it listens (and the admin key on the very
// first start), and shuts down gracefully on SIGTERM or SIGINT.
import { Command } from 'commander';
import { envNameOf, type ConfigFlags } from '../config.js';
import { startServer } from '../server.js';
import { CliError, configFrom, EXIT_USAGE } from './options.js';
import { CatalogError } from '../catalog/catalog.js';
import { CapacityError } from '../catalog/capacity.js';

const SERVE_OPTIONS: [keyof ConfigFlags, string, string][] = [
  ['port', '--port <n>', 'port to listen on'],
  ['host', '--host <address>', 'address to listen on'],
  ['dataDir', '--data-dir <dir>', 'where Gantry keeps its embedded database'],
  ['database', '--database <url>', 'postgres:// URL of a store shared by several replicas (default: embedded SQLite)'],
  ['databasePoolSize', '--database-pool-size <n>', 'PostgreSQL connections per replica'],
  ['leaderLeaseMs', '--leader-lease-ms <ms>', 'how long leadership lasts without renewal (PostgreSQL)'],
  ['eventFallbackMs', '--event-fallback-ms <ms>', 'waiters re-check the store this often (PostgreSQL)'],
  ['publicUrl', '--public-url <url>', 'management API base URL as clients reach it'],
  ['workerApiUrl', '--worker-api-url <url>', 'queue and worker API base URL (requestUrls, worker environment)'],
  ['replicaUrl', '--replica-url <url>', 'this replica\'s own address, for the workers it starts and for other replicas'],
  ['lbUrlPattern', '--lb-url-pattern <url>', 'load-balancing endpoint URL pattern with {id}'],
  ['rateLimitMinute', '--rate-limit-minute <n>', 'requests per account per minute'],
  ['rateLimitHour', '--rate-limit-hour <n>', 'requests per account per hour'],
  ['rateLimitDay', '--rate-limit-day <n>', 'requests per account per day'],
  ['authFailureLimit', '--auth-failure-limit <n>', 'failed authentications per client address per minute before 429'],
  ['catalogFile', '--catalog-file <file>', 'replacement catalog JSON'],
  ['capacityFile', '--capacity-file <file>', 'capacity this deployment offers (JSON)'],
  ['maxWorkersPerEndpoint', '--max-workers-per-endpoint <n>', 'upper bound of workers.max'],
  ['jobLeaseMs', '--job-lease-ms <ms>', 'how long a taken job stays leased without a ping'],
  ['takeWaitMs', '--take-wait-ms <ms>', 'job-take long-poll wait'],
  ['maxOutputBytes', '--max-output-bytes <n>', 'largest job output stored'],
  ['webhookAllowCidrs', '--webhook-allow-cidrs <list>', 'private ranges webhooks may reach, comma-separated CIDRs'],
  ['streamWaitMs', '--stream-wait-ms <ms>', 'how long a stream read waits for a chunk'],
  ['maxLeaseLosses', '--max-lease-losses <n>', 'lapsed leases before a job fails'],
  ['sweepIntervalMs', '--sweep-interval-ms <ms>', 'period of the timeout, expiry and lease sweeper'],
  ['workerPingIntervalMs', '--worker-ping-interval-ms <ms>', 'ping period handed to workers'],
  ['workerProvider', '--worker-provider <name>', 'process (Gantry runs workers as local processes) or none'],
  ['workerWorkDir', '--worker-work-dir <dir>', 'working directory of local worker processes'],
  ['scaleIntervalMs', '--scale-interval-ms <ms>', 'period of the autoscaler loop'],
  ['workerInitTimeoutMs', '--worker-init-timeout-ms <ms>', 'a worker not taking jobs by then is replaced'],
  ['workerStopGraceMs', '--worker-stop-grace-ms <ms>', 'SIGTERM to SIGKILL when stopping a worker'],
  ['crashBackoffMs', '--crash-backoff-ms <ms>', 'first delay before replacing a crashed worker'],
  ['lbHoldMs', '--lb-hold-ms <ms>', 'how long a load-balanced request waits for a ready worker before 503'],
  ['lbHealthIntervalMs', '--lb-health-interval-ms <ms>', 'period of load-balancing workers\' health checks'],
  ['lbUnhealthyMs', '--lb-unhealthy-ms <ms>', 'a load-balancing worker unhealthy this long is replaced'],
  ['logLevel', '--log-level <level>', 'fatal, error, warn, info, debug, trace or silent'],
];

function banner(url: string, adminKey: string | undefined): string {
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
      `  curl -s ${url}/v2/serverless -H "Authorization: Bearer ${adminKey}"`,
    );
  } else {
    lines.push('Create an API key with: gantry keys create');
  }
  return `${lines.join('\n')}\n`;
}

export function serveCommand(): Command {
  const command = new Command('serve').description('start the Gantry server');
  for (const [key, flags, help] of SERVE_OPTIONS) command.option(flags, `${help} (env ${envNameOf(key)})`);
  command.action(async (flags: ConfigFlags) => {
    const config = configFrom(flags);
    const server = await startServer(config).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new CliError(`port ${config.port} on ${config.host} is already in use`);
      if (error.code === 'EACCES') throw new CliError(`not allowed to listen on ${config.host}:${config.port}`);
      if (error instanceof CatalogError || error instanceof CapacityError) throw new CliError(error.message, EXIT_USAGE);
      throw error;
    });
    process.stdout.write(banner(server.url, server.adminKey?.token));
    let signals = 0;
    const shutdown = (signal: string) => {
      signals++;
      if (signals > 1) {
        process.stderr.write(`${signal} again: exiting now\n`);
        process.exit(1);
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
