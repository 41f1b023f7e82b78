// Numbers in a job's input and output reach the other side as they were written, over real
// sockets: an integer past 2^53 keeps its digits and 1.0 stays 1.0 (a float to a Python worker or
// client), through run, runsync, run-batch, job-done, job-done-batch and stream chunks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startLive, type Live } from './support/live.js';

let g: Live;
before(async () => {
  g = await startLive({ takeWaitMs: '200' });
});
after(() => g.close());

const INPUT = '{"id": 9007199254740993, "temperature": 1.0, "scale": 1e3, "name": "x"}';
const OUTPUT = '{"id":12345678901234567890,"score":2.50}';

/** A raw JSON call, answered as text: parsing the answer here would change what is checked. */
async function raw(method: 'GET' | 'POST', path: string, body?: string, key = g.adminKey): Promise<string> {
  const res = await request(`${g.url}${path}`, {
    method,
    body,
    headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  });
  assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode}`);
  return res.body.text();
}
const queue = (method: 'GET' | 'POST', path: string, body?: string) =>
  raw(method, `/v2/${g.endpointId}${path}`, body, `Bearer ${g.adminKey}`);
const worker = (method: 'GET' | 'POST', path: string, body?: string) => raw(method, `/v2/${g.endpointId}${path}`, body, g.workerKey);

test('an input reaches the worker, and an output the client, with the numbers as written', async () => {
  const id = (JSON.parse(await queue('POST', '/run', `{"input": ${INPUT}}`)) as { id: string }).id;
  const taken = await worker('GET', '/job-take/wx?gpu=none&job_in_progress=0');
  assert.ok(taken.includes(`"input":${INPUT}`), taken);
  await worker('POST', `/job-done/wx/${id}?gpu=none&isStream=false`, `{"output": ${OUTPUT}}`);
  const status = await queue('GET', `/status/${id}`);
  assert.ok(status.includes(`"output":${OUTPUT}`), status);
});

test('run-batch inputs and job-done-batch outputs keep their numbers too', async () => {
  const batch = await queue('POST', '/run-batch', `{"jobs": [{"input": {"n": 1}}, {"input": ${INPUT}}]}`);
  const [, second] = (JSON.parse(batch) as { jobs: { id: string }[] }).jobs;
  const taken = await worker('GET', '/job-take-batch/wy?gpu=none&job_in_progress=0&batch_size=2');
  assert.ok(taken.includes(`"input":${INPUT}`), taken);
  const answer = await worker('POST', '/job-done-batch/wy?gpu=none', `{"results": [{"id": "${second!.id}", "output": ${OUTPUT}}]}`);
  assert.match(answer, /"accepted"/);
  assert.ok((await queue('GET', `/status/${second!.id}`)).includes(`"output":${OUTPUT}`));
});

test('runsync keeps them', async () => {
  const runsync = queue('POST', '/runsync?wait=10000', `{"input": ${INPUT}}`);
  let taken = '';
  for (let i = 0; i < 50 && !taken.includes('"id"'); i++) taken = await worker('GET', '/job-take/wz?gpu=none&job_in_progress=0');
  assert.ok(taken.includes(`"input":${INPUT}`), taken);
  const id = (JSON.parse(taken) as { id: string }).id;
  await worker('POST', `/job-done/wz/${id}?gpu=none&isStream=false`, `{"output": ${OUTPUT}}`);
  assert.ok((await runsync).includes(`"output":${OUTPUT}`));
});

test('a stream chunk keeps its numbers', async () => {
  const id = (JSON.parse(await queue('POST', '/run', '{"input": {}}')) as { id: string }).id;
  assert.ok((await worker('GET', '/job-take/ws?gpu=none&job_in_progress=0')).includes(id));
  await worker('POST', `/job-stream/ws/${id}?gpu=none&isStream=true`, `{"output": ${OUTPUT}}`);
  const streamed = await queue('GET', `/stream/${id}`);
  assert.ok(streamed.includes(`{"output":${OUTPUT}}`), streamed);
});
