// Child process of the load-balancer benchmark: a Gantry server running one example HTTP worker
// behind a load-balancing endpoint. Prints one JSON line once the worker is ready: Gantry's URL,
// the endpoint, a rate-limit-exempt key and the worker's own address.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, startServer } from './gantry-modules.js';
import { stopOnSigterm } from './server-exit.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-'));
const config = loadConfig({ dataDir, port: '0', logLevel: 'silent', workerProvider: 'process', lbHealthIntervalMs: '1000' }, {});
const server = await startServer(config);
const key = await server.services.apiKeys.create({ name: 'bench', rateLimitExempt: true });
const endpoint = await server.services.endpoints.create(key.record.accountId, {
  name: 'bench-lb',
  type: 'LOAD_BALANCER',
  image: 'local/http-worker',
  entrypoint: [process.execPath],
  cmd: ['--import', 'tsx', 'examples/http-worker.ts'],
  cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  // One worker that takes every request at once: the benchmark measures the balancer, not holding.
  scaling: { type: 'REQUEST_COUNT', requestCount: 10_000 },
  workers: { min: 1, max: 1 },
});
const deadline = Date.now() + 30_000;
for (;;) {
  const worker = server.services.runtime!.workersOf(endpoint.id)[0];
  const backend = worker && server.services.balancer.get(worker.workerId);
  if (backend?.health === 'READY') {
    process.stdout.write(
      `${JSON.stringify({ url: server.url, endpointId: endpoint.id, apiKey: key.token, worker: backend.address, workerPid: worker!.pid })}\n`,
    );
    break;
  }
  if (Date.now() > deadline) throw new Error('the worker did not become ready in 30 s');
  await new Promise((resolve) => setTimeout(resolve, 50));
}
stopOnSigterm(server, dataDir);
