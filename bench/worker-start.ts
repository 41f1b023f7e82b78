// Cold start versus FlashBoot resume of the example worker, as a client sees it: the time from
// submitting a no-op runsync job to an endpoint with no running worker until its result.
// With --provider docker the worker is the test image (scripts/test-images.sh, run first):
// cold start creates and starts a container, resume unpauses it.
// Run: npm run bench:worker-start -- [--rounds 5] [--provider process|docker]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { median, ms } from './lib/measure.js';

const { values: opts } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, provider: { type: 'string', default: 'process' } },
});
const ROUNDS = Number(opts.rounds);
const PROVIDER = opts.provider === 'docker' ? 'docker' : 'process';
// The docker provider runs the image as built; the process provider needs the command.
const WORKER =
  PROVIDER === 'docker'
    ? { image: 'gantry-test/worker:current' }
    : { image: 'local/echo', entrypoint: [process.execPath], cmd: ['--import', 'tsx', 'examples/echo-worker.ts'] };
const config = loadConfig(
  {
    dataDir: mkdtempSync(join(tmpdir(), 'gantry-start-')),
    port: '0',
    logLevel: process.env.BENCH_LOG ?? 'silent',
    scaleIntervalMs: '100',
    workerPingIntervalMs: '500',
    workerProvider: PROVIDER,
  },
  {},
);
const server = await startServer(config);
const { token, record } = await server.services.apiKeys.create({ rateLimitExempt: true });
const sleep = (t: number) => new Promise((resolve) => setTimeout(resolve, t));

async function endpoint(flashboot: 'OFF' | 'FLASHBOOT') {
  return server.services.endpoints.create(record.accountId, {
    name: `start-${flashboot}`,
    type: 'QUEUE',
    flashboot,
    ...WORKER,
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    workers: { min: 0, max: 1, idleTimeout: 1 },
  });
}

async function timedJob(endpointId: string): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${server.url}/v2/${endpointId}/runsync?wait=60000`, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json' },
    body: '{"input":{"echo":1}}',
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
console.log(`example worker on the ${PROVIDER} provider, ${ROUNDS} rounds (medians), Node ${process.version}`);
const coldLabel = `cold start (${PROVIDER === 'docker' ? 'create+start' : 'spawn'} -> first result)`;
const resumeLabel = `FlashBoot resume (${PROVIDER === 'docker' ? 'unpause' : 'thaw'} -> first result)`;
console.log(
  `${coldLabel.padEnd(42)}${median(coldTimes).toFixed(0).padStart(7)} ms   all: ${coldTimes.map((t) => t.toFixed(0)).join(', ')}`,
);
console.log(
  `${resumeLabel.padEnd(42)}${median(resumeTimes).toFixed(0).padStart(7)} ms   all: ${resumeTimes.map((t) => t.toFixed(0)).join(', ')}`,
);
console.log(`resume is ${(median(coldTimes) / median(resumeTimes)).toFixed(1)}x faster`);
await server.close();
process.exit(0);
