// `gantry worker-env <endpointId>`: a new worker credential for the endpoint and the environment
// that lets a RunPod SDK worker (or Gantry's own) serve it by hand. The worker must call the
// server at the address the server really has, so that address is asked of the running server
// (or given with --worker-api-url), never assumed from defaults.
import { Command, Option } from 'commander';
import { storeLocation } from '../store/store-location.js';
import { WorkerCredentialService } from '../services/worker-credentials.js';
import { workerEnvironment } from '../runtime/worker-env.js';
import { CliError, configFrom, EXIT_USAGE, withDataDir, type StoreFlags } from './options.js';
import { openExistingStore } from './existing-store.js';
import { ApiClient, pathSegment } from './remote/api-client.js';
import { normalizeUrl, resolveConnection, withConnection, type ConnectionFlags } from './remote/connection.js';
import { ENV_FORMATS, formatEnv, type EnvFormat } from './output/env-formats.js';
import { print } from './output/print.js';

interface WorkerEnvFlags extends StoreFlags, ConnectionFlags {
  workerApiUrl?: string;
  workerId?: string;
  format: EnvFormat;
  export?: boolean;
}

interface EndpointAnswer {
  type: string;
  requestUrls: { run?: string };
}

/** The base URL workers call: given outright, or read from the endpoint's run URL as the server states it. */
async function workerApiBase(endpointId: string, flags: WorkerEnvFlags): Promise<string> {
  const given = flags.workerApiUrl ?? process.env.GANTRY_WORKER_API_URL;
  if (given) return normalizeUrl(given, flags.workerApiUrl ? '--worker-api-url' : 'GANTRY_WORKER_API_URL');
  const connection = resolveConnection(flags);
  if (!connection.apiKey) {
    throw new CliError(
      `worker-env asks the server at ${connection.url} for the address workers reach it at, which takes an API key (--api-key, GANTRY_API_KEY or gantry login); or give that address with --worker-api-url`,
      EXIT_USAGE,
    );
  }
  const client = new ApiClient({ ...connection, apiKey: connection.apiKey });
  const endpoint = await client.call<EndpointAnswer>('GET', `/v2/serverless/${pathSegment(endpointId)}`);
  if (endpoint.type !== 'QUEUE') throw new CliError(`endpoint ${endpointId} is a ${endpoint.type} endpoint; it has no job queue`);
  const suffix = `/v2/${endpointId}/run`;
  const run = endpoint.requestUrls.run ?? '';
  if (!run.endsWith(suffix)) throw new CliError(`the server at ${connection.url} gave no run URL for endpoint ${endpointId}`);
  return run.slice(0, -suffix.length);
}

export function workerEnvCommand(): Command {
  return withConnection(withDataDir(new Command('worker-env')))
    .description("print the environment a worker needs to serve an endpoint (creates a worker credential in the server's database)")
    .argument('<endpointId>', 'the queue endpoint the worker serves')
    .option(
      '--worker-api-url <url>',
      'the address workers reach the server at (env GANTRY_WORKER_API_URL; default: asked of the server at --url)',
    )
    .option('--worker-id <id>', 'the worker id (default: a random one)')
    .addOption(
      new Option(
        '--format <format>',
        'shell (export lines for eval), env-file (docker --env-file), json, docker-args (for eval "docker run ...")',
      )
        .choices(ENV_FORMATS)
        .default('shell'),
    )
    .addOption(new Option('--export', 'the shell format (kept for older scripts)').hideHelp())
    .action(async (endpointId: string, flags: WorkerEnvFlags) => {
      const config = configFrom({ dataDir: flags.dataDir, database: flags.database });
      const base = await workerApiBase(endpointId, flags);
      const store = await openExistingStore(config);
      try {
        const endpoint = await store.findEndpoint(endpointId);
        if (!endpoint)
          throw new CliError(`no endpoint ${endpointId} in ${storeLocation(config)}: is that the database of the server at ${base}?`);
        if (endpoint.spec.type !== 'QUEUE') throw new CliError(`endpoint ${endpointId} is a LOAD_BALANCER endpoint; it has no job queue`);
        const { commandClock } = await import('../cluster/database-clock.js'); // see decision 38
        const credential = await new WorkerCredentialService(store, await commandClock(store)).create(endpointId);
        const env = { ...endpoint.spec.env, ...workerEnvironment(config, endpointId, credential, flags.workerId, base) };
        print(formatEnv(env, flags.export ? 'shell' : flags.format));
      } finally {
        await store.close();
      }
    });
}
