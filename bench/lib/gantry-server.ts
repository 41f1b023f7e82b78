// Child process of the queue benchmark: a Gantry server on a temporary data dir, printing one
// JSON line with its URL, an endpoint, a rate-limit-exempt key and a worker credential.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-'));
const config = loadConfig({ dataDir, port: '0', logLevel: 'silent', takeWaitMs: '20000', workerProvider: 'none' }, {});
const server = await startServer(config);
const key = await server.services.apiKeys.create({ name: 'bench', rateLimitExempt: true });
const endpoint = await server.services.endpoints.create(key.record.accountId, {
  name: 'bench',
  type: 'QUEUE',
  image: 'bench/noop',
  cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  scaling: { type: 'QUEUE_DELAY', queueDelay: 60 },
  workers: { min: 0, max: 0 },
});
const workerKey = await server.services.workerCredentials.create(endpoint.id);
process.stdout.write(`${JSON.stringify({ url: server.url, endpointId: endpoint.id, apiKey: key.token, workerKey })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
