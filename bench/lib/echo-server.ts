// Child process of the queue benchmark: a bare Fastify server answering the same four request
// shapes as Gantry's queue path with canned bodies, to measure this machine's HTTP ceiling (and
// the purge the benchmarks clear the queue with between phases).
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let next = 0;
app.post('/v2/:ep/run', async () => ({ id: `job-${next++}`, status: 'IN_QUEUE' }));
app.post('/v2/:ep/run-batch', async (request) => ({
  jobs: (request.body as { jobs: unknown[] }).jobs.map(() => ({ id: `job-${next++}`, status: 'IN_QUEUE' })),
}));
app.get('/v2/:ep/job-take/:worker', async () => ({ id: `job-${next}`, input: { n: 1 } }));
app.post('/v2/:ep/job-done/:worker/:job', async () => ({}));
app.post('/v2/:ep/purge-queue', async () => ({ removed: 0, status: 'completed' }));
app.get('/v2/:ep/status-sync/:job', async (request) => ({
  id: (request.params as { job: string }).job,
  status: 'COMPLETED',
  output: { n: 1 },
}));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url: address, endpointId: 'echo', apiKey: 'none', workerKey: 'none' })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
