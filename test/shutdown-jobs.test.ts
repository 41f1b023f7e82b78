// `gantry serve` told to stop while its workers hold jobs: the workers stop first, with the
// server still listening, so a job that finishes in their grace is kept; a job still held when
// the grace ends goes back to the queue without counting as lost, as at scale-down. Before, the
// listener closed first: the finished job's result was refused and both jobs waited out their
// lease and ran again.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { callApi, serve, stop } from './support/processes.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { eventually } from './support/live.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-shutdown-jobs-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Opens a worker log stream; `ended` says how it ended. */
function followLog(url: string, key: string): Promise<{ headers: IncomingHttpHeaders; ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      const ended = new Promise<string>((done) => {
        res.on('end', () => done('ended cleanly'));
        res.on('error', (error) => done(`cut off: ${error.message}`));
        res.on('aborted', () => done('cut off'));
      });
      res.resume();
      resolve({ headers: res.headers, ended });
    });
    req.on('error', reject);
  });
}

const start = (provider: string) =>
  serve([
    '--data-dir',
    dataDir,
    '--worker-provider',
    provider,
    '--worker-work-dir',
    process.cwd(),
    '--worker-stop-grace-ms',
    '4000',
    '--scale-interval-ms',
    '100',
    // One counted loss would fail the job: the job still held must come back queued.
    '--max-lease-losses',
    '1',
  ]);

test('jobs finished in the grace are kept; jobs still held go back to the queue, no loss counted', async () => {
  const first = await start('process');
  const key = /^\s+(gantry_[a-z0-9]{12}_\S{43})$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  const created = await callApi(
    first.url,
    key,
    'POST',
    '/v2/serverless',
    queueEndpointBody('draining', {
      workers: { min: 1, max: 1 },
      entrypoint: [process.execPath],
      cmd: ['--import', 'tsx', 'examples/echo-worker.ts'],
      env: { WORKER_CONCURRENCY: '2' },
    }),
  );
  assert.equal(created.status, 201, created.text);
  const endpointId = created.json.id as string;
  const submit = async (input: unknown) => (await callApi(first.url, key, 'POST', `/v2/${endpointId}/run`, { input })).json.id as string;
  const quick = await submit({ sleepMs: 1500, echo: 'finished in the grace' });
  const long = await submit({ sleepMs: 120_000 });
  await eventually(async () => {
    const statuses = await Promise.all(
      [quick, long].map(async (id) => (await callApi(first.url, key, 'GET', `/v2/${endpointId}/status/${id}`)).json.status),
    );
    return statuses.every((status) => status === 'IN_PROGRESS');
  }, 30_000);

  // A client following the worker's log: its stream is ended cleanly at shutdown, not cut off.
  const workerId = (await callApi(first.url, key, 'GET', `/v2/serverless/${endpointId}/workers`)).json.workers[0].id as string;
  const following = await followLog(`${first.url}/v2/serverless/${endpointId}/workers/${workerId}/logs`, key);
  assert.equal(following.headers['x-accel-buffering'], 'no', 'a proxy in front must not hold the lines back');

  assert.equal(await stop(first.child), 0, first.output());
  assert.equal(await following.ended, 'ended cleanly');

  // No workers now: what the stop left is read as it is.
  const second = await start('none');
  try {
    const status = async (id: string) => (await callApi(second.url, key, 'GET', `/v2/${endpointId}/status/${id}`)).json;
    const finished = await status(quick);
    assert.equal(finished.status, 'COMPLETED', JSON.stringify(finished));
    assert.equal(finished.output, 'finished in the grace');
    assert.equal(finished.retries ?? 0, 0, 'it ran once');
    const returned = await status(long);
    assert.equal(returned.status, 'IN_QUEUE', JSON.stringify(returned));
    assert.equal(returned.retries, 1, 'it goes back once, at once, not after its lease');
  } finally {
    await stop(second.child);
  }
});
