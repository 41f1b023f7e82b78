// Child process of the queue benchmarks: a Gantry server printing one JSON line with its URL.
// The first server of a deployment also creates an endpoint (BENCH_ENDPOINTS of them), a
// rate-limit-exempt key and a worker credential per endpoint and prints them; with BENCH_JOIN set
// it only joins (another replica, same database).
// BENCH_DATABASE (a postgres:// URL) selects PostgreSQL, with a secret key as replicas need one to
// sign webhooks; the default is SQLite in a temporary dir.
// BENCH_RATE_LIMITED makes the key count against its account's rate limits, as users' keys do,
// with quotas no run reaches.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, startServer } from './gantry-modules.js';
import { stopOnSigterm } from './server-exit.js';
import { benchEndpoint } from './bench-endpoint.js';
import { countQueries } from './query-counter.js';
import { countRequests } from './request-counter.js';

countQueries();
countRequests();

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-'));
const database = process.env.BENCH_DATABASE;
const rateLimited = Boolean(process.env.BENCH_RATE_LIMITED);
const QUOTA = '1000000000';
/** One fixed key: every replica of a benchmark's deployment opens what another sealed. */
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const config = loadConfig(
  {
    dataDir,
    port: '0',
    logLevel: 'silent',
    takeWaitMs: '20000',
    // bench:large-jobs and bench:webhooks receive their webhooks on this machine.
    webhookAllowCidrs: '127.0.0.0/8',
    workerProvider: 'none',
    ...(database ? { database, databasePoolSize: '16', secretKey: SECRET_KEY } : {}),
    ...(rateLimited ? { rateLimitMinute: QUOTA, rateLimitHour: QUOTA, rateLimitDay: QUOTA } : {}),
  },
  {},
);
const server = await startServer(config);
stopOnSigterm(server, dataDir);
if (process.env.BENCH_JOIN) {
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
} else {
  const key = await server.services.apiKeys.create({ name: 'bench', rateLimitExempt: !rateLimited });
  // BENCH_ENDPOINTS: the deployment's endpoints (one by default), each with a worker credential.
  const endpoints = [];
  for (let i = 0; i < Number(process.env.BENCH_ENDPOINTS ?? 1); i++) {
    const endpoint = await server.services.endpoints.create(key.record.accountId, benchEndpoint(`bench-${i}`));
    endpoints.push({ endpointId: endpoint.id, workerKey: await server.services.workerCredentials.create(endpoint.id) });
  }
  process.stdout.write(`${JSON.stringify({ url: server.url, ...endpoints[0], apiKey: key.token, endpoints })}\n`);
}
