// Prometheus metrics reflect the queue, the workers and finished jobs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';
import { startHarness } from './support/harness.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

const scrape = async (key = g.adminKey) => {
  const res = await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
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

test('/metrics without credentials is refused with a problem', async () => {
  const res = await fetch(`${g.url}/metrics`);
  assert.equal(res.status, 401);
  assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
  const wrong = await fetch(`${g.url}/metrics`, { headers: { authorization: 'Bearer not-a-key-nor-the-token' } });
  assert.equal(wrong.status, 401);
});

test("an API key sees its own endpoints only, never another account's or the process figures", async () => {
  const ep = `endpoint="${g.endpointId}"`;
  await g.queue('POST', '/run', { input: { tenant: 'a' } });
  const own = await scrape();
  assert.match(own, new RegExp(`gantry_queue_depth\\{${ep}\\}`));
  assert.doesNotMatch(own, /gantry_process_/);

  const otherKey = await g.newKey({ accountName: 'tenant-b' });
  const other = await scrape(otherKey);
  assert.doesNotMatch(other, new RegExp(g.endpointId));
  assert.match(other, /# TYPE gantry_queue_depth gauge/);
  await g.queue('POST', '/purge-queue');
});

test("the operator's metrics token sees every account; an explicitly open scrape needs nothing", async () => {
  const token = 'operator-scrape-token-0123456789';
  const h = await startHarness({ metricsToken: token });
  try {
    const created = await h.call('POST', '/v2/serverless', {
      name: 'metrics-all',
      type: 'QUEUE',
      image: 'acme/echo:1',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
      scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    const operator = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(operator.statusCode, 200);
    assert.match(operator.body, new RegExp(`gantry_queue_depth\\{endpoint="${id}"\\} 0`));
    assert.match(operator.body, /gantry_process_/);
    // Sampled every 100 ms rather than prom-client's 10, so that an idle server sleeps; still reported.
    assert.match(operator.body, /gantry_process_nodejs_eventloop_lag_p99_seconds \d/);
    const anonymous = await h.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(anonymous.statusCode, 401);
  } finally {
    await h.close();
  }
  const open = await startHarness({ metricsOpen: 'yes' });
  try {
    const anonymous = await open.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(anonymous.statusCode, 200);
    assert.match(anonymous.body, /gantry_process_/);
  } finally {
    await open.close();
  }
});
