// Workers by state over time: the leader samples a real worker process, and the series route
// answers its state as a history, step by step, to its account only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startLive, type Live } from './support/live.js';

// A worker that never takes a job: it stays in the state the runtime gives a worker that has not
// proven itself, which is all this needs.
const QUIET_WORKER = {
  entrypoint: [process.execPath],
  cmd: ['-e', 'setInterval(() => {}, 1000)'],
  workers: { min: 1, max: 1 },
};

let g: Live;
before(async () => {
  g = await startLive(
    { workerProvider: 'process', scaleIntervalMs: '100', workerStopGraceMs: '500', workerSampleIntervalMs: '200' },
    QUIET_WORKER,
  );
});
after(() => g.close());

const series = async () => (await g.call('GET', `/v2/serverless/${g.endpointId}/series?minutes=5&step=10`)).json();

test("the series shows the running worker's state at the latest step, as the workers list does, and none before it started", async () => {
  const state = await eventually(async () => {
    const workers = (await g.call('GET', `/v2/serverless/${g.endpointId}/workers`)).json().workers as { status: string }[];
    if (workers.length !== 1) return undefined;
    const status = workers[0]!.status.toLowerCase();
    const last = (await series()).points.at(-1).workers;
    return last[status] === 1 ? status : undefined;
  }, 15_000);
  const points = (await series()).points;
  assert.equal(points.length, 30);
  const total = (w: Record<string, number>) => Object.values(w).reduce((a, b) => a + b, 0);
  assert.equal(total(points.at(-1).workers), 1, `one worker, ${state}`);
  assert.equal(total(points[0].workers), 0, 'five minutes ago the server was not running');
});

test("another account does not see the endpoint's worker history", async () => {
  const other = await g.services.apiKeys.create({ name: 'other', accountName: 'someone-else' });
  const res = await g.call('GET', `/v2/serverless/${g.endpointId}/series`, undefined, other.token);
  assert.equal(res.statusCode, 404);
});
