// Prometheus metrics reflect the queue, the workers and finished jobs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const scrape = async () => {
  const res = await fetch(`${g.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /^text\/plain/);
  return res.text();
};
const value = (text: string, metric: string) => {
  const line = text.split('\n').find((l) => l.startsWith(metric));
  return line === undefined ? undefined : Number(line.slice(metric.length).trim());
};

test('queue depth, oldest wait, workers and finished jobs are exported per endpoint', async () => {
  const ep = `endpoint="${g.endpointId}"`;
  for (let i = 0; i < 3; i++) await g.queue('POST', '/run', { input: { i } });
  let text = await scrape();
  assert.equal(value(text, `gantry_queue_depth{${ep}}`), 3);
  assert.ok((value(text, `gantry_queue_oldest_wait_seconds{${ep}}`) ?? -1) >= 0);

  const taken = await g.worker('GET', '/job-take-batch/m1?batch_size=3');
  const [a, b, c] = taken.json.map((j: { id: string }) => j.id);
  await g.worker('POST', `/job-done/m1/${a}?isStream=false`, '{"output": 1}');
  await g.worker('POST', `/job-done/m1/${b}?isStream=false`, '{"error": "no"}');
  await g.worker('GET', `/ping/m1?job_id=${c}`);
  text = await scrape();
  assert.equal(value(text, `gantry_queue_depth{${ep}}`), 0);
  assert.equal(value(text, `gantry_jobs_finished_total{${ep},status="COMPLETED"}`), 1);
  assert.equal(value(text, `gantry_jobs_finished_total{${ep},status="FAILED"}`), 1);
  assert.equal(value(text, `gantry_workers{${ep},state="running"}`), 1);
  assert.equal(value(text, `gantry_job_delay_seconds_count{${ep}}`), 2);
  assert.equal(value(text, `gantry_job_execution_seconds_count{${ep}}`), 2);
  await g.queue('POST', `/cancel/${c}`);
});
