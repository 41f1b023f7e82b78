// `gantry worker-env <endpointId>`: a new worker credential for the endpoint and the environment
// that lets a RunPod SDK worker (or Gantry's own) serve it by hand.
import { Command } from 'commander';
import { openStore, storeLocation } from '../store/open-store.js';
import { WorkerCredentialService } from '../services/worker-credentials.js';
import { formatEnvironment, workerEnvironment } from '../runtime/worker-env.js';
import { envNameOf } from '../config.js';
import { CliError, configFrom, withDataDir, type StoreFlags } from './options.js';

export function workerEnvCommand(): Command {
  return withDataDir(new Command('worker-env'))
    .description('print the environment a worker needs to serve an endpoint (creates a worker credential)')
    .argument('<endpointId>', 'the queue endpoint the worker serves')
    .option('--worker-api-url <url>', `base URL workers reach Gantry at (env ${envNameOf('workerApiUrl')})`)
    .option('--port <n>', `the server's port, when the worker API URL is derived from it (env ${envNameOf('port')})`)
    .option('--worker-id <id>', 'the worker id (default: a random one)')
    .option('--export', 'prefix each line with "export " for eval in a shell')
    .action(async (endpointId: string, flags: StoreFlags & { workerApiUrl?: string; port?: string; workerId?: string; export?: boolean }) => {
      const config = configFrom({ dataDir: flags.dataDir, database: flags.database, workerApiUrl: flags.workerApiUrl, port: flags.port });
      const store = await openStore(config);
      try {
        const endpoint = await store.findEndpoint(endpointId);
        if (!endpoint) throw new CliError(`no endpoint ${endpointId} in ${storeLocation(config)}`);
        if (endpoint.spec.type !== 'QUEUE') throw new CliError(`endpoint ${endpointId} is a LOAD_BALANCER endpoint; it has no job queue`);
        const credential = await new WorkerCredentialService(store).create(endpointId);
        const env = { ...endpoint.spec.env, ...workerEnvironment(config, endpointId, credential, flags.workerId) };
        const text = formatEnvironment(env);
        process.stdout.write(`${flags.export ? text.replace(/^/gm, 'export ') : text}\n`);
      } finally {
        await store.close();
      }
    });
}
