// Cold start versus FlashBoot resume of the example worker, as a client sees it: the time from
// submitting a no-op runsync job to an endpoint with no running worker until its result.
// Run: npm run bench:worker-start -- [--rounds 5]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { median, ms } from './lib/measure.js';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(opts.rounds);
const config = loadConfig(
  { dataDir: mkdtempSync(join(tmpdir(), 'gantry-start-')), port: '0', logLevel: process.env.BENCH_LOG ?? 'silent', scaleIntervalMs: '100', workerPingIntervalMs: '500', workerProvider: 'process' },
  {},
);
const server = await startServer(config);
const { token, record } = await server.services.apiKeys.create({ rateLimitExempt: true });
const sleep = (t: number) => new Promise((resolve) => setTimeout(resolve, t));

async function endpoint(flashboot: 'OFF' | 'FLASHBOOT') {
  return server.services.endpoints.create(record.accountId, {
    name: `start-${flashboot}`, type: 'QUEUE', image: 'local/echo', flashboot,
    entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/echo-worker.ts'],
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }], scaling: { type: 'QUEUE_DELAY', queueDelay: 1 }, workers: { min: 0, max: 1, idleTimeout: 1 },
  });
}

async function timedJob(endpointId: string): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${server.url}/v2/${endpointId}/runsync?wait=60000`, {
    method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: '{"input":{"echo":1}}',
  });
  const body = (await res.json()) as { status: string };
  if (body.status !== 'COMPLETED') throw new Error(`job ended ${body.status}`);
  return ms(started);
}

async function untilNoRunningWorker(endpointId: string) {
  while (server.services.runtime!.workersOf(endpointId).length > 0) await sleep(50);
  await sleep(300);
}

const cold = await endpoint('OFF');
const flash = await endpoint('FLASHBOOT');
const coldTimes: number[] = [];
const resumeTimes: number[] = [];
await timedJob(flash.id);
for (let i = 0; i < ROUNDS; i++) {
  await untilNoRunningWorker(cold.id);
  coldTimes.push(await timedJob(cold.id));
  await untilNoRunningWorker(flash.id);
  resumeTimes.push(await timedJob(flash.id));
}
console.log(`example worker, ${ROUNDS} rounds (medians), Node ${process.version}`);
console.log(`cold start (spawn -> first result)      ${median(coldTimes).toFixed(0).padStart(7)} ms   all: ${coldTimes.map((t) => t.toFixed(0)).join(', ')}`);
console.log(`FlashBoot resume (thaw -> first result) ${median(resumeTimes).toFixed(0).padStart(7)} ms   all: ${resumeTimes.map((t) => t.toFixed(0)).join(', ')}`);
console.log(`resume is ${(median(coldTimes) / median(resumeTimes)).toFixed(1)}x faster`);
await server.close();
process.exit(0);
