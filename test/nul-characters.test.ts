// A NUL character in text a client sends is refused up front with a problem naming the field, on
// every route and on both stores: PostgreSQL's text columns cannot hold one (a 500 before), and
// no worker process takes one in an argument or an environment value. A job's input is JSON the
// server keeps as text, so it may hold one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem, startHarness, type Harness } from './support/harness.js';
import { graphql } from './support/graphql-clients.js';
import { startLive } from './support/live.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';
import { NO_NUL_PATTERN, refusingNul } from '../src/http/no-nul.js';

let h: Harness;
let endpointId: string;
before(async () => {
  h = await startHarness();
  const made = await h.call('POST', '/v2/serverless', queueEndpointBody('plain'));
  endpointId = made.json().id;
});
after(() => h.close());

test('every route with a path parameter answers a NUL in it with a 4xx problem', async () => {
  const document = (await h.call('GET', '/v2/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  let calls = 0;
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.includes('{')) continue;
    for (const method of Object.keys(operations)) {
      if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) continue;
      const url = path.replace(/\{[^}]+\}/g, 'a%00b');
      const res = await h.call(method.toUpperCase(), url, method === 'get' || method === 'delete' ? undefined : {});
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${method} ${url}: ${res.statusCode} ${res.body}`);
      calls++;
    }
  }
  assert.ok(calls > 50, `only ${calls} routes with path parameters were called`);
});

test('text fields of the management API refuse a NUL, each named', async () => {
  const cases: [string, string, Record<string, unknown>, string[]][] = [
    [
      'POST',
      '/v2/serverless',
      queueEndpointBody('n\u0000', { env: { A: 'x\u0000y' }, cmd: ['node', '\u0000'] }),
      ['name: must not contain a NUL character', 'cmd[1]: must not contain a NUL character', 'env.A: must not contain a NUL character'],
    ],
    ['PATCH', `/v2/serverless/${endpointId}`, { args: 'echo \u0000' }, ['args: must not contain a NUL character']],
    ['POST', '/v2/templates', { name: 't', image: 'i\u0000' }, ['image: must not contain a NUL character']],
    ['POST', '/v2/secrets', { name: 's', value: 'a\u0000' }, ['value: must not contain a NUL character']],
  ];
  for (const [method, url, body, errors] of cases) {
    const res = await h.call(method, url, body);
    assert.equal(res.statusCode, 422, `${method} ${url}: ${res.body}`);
    assert.deepEqual([...(problem(res).errors ?? [])].sort(), [...errors].sort(), url);
  }
  const listed = (await h.call('GET', '/v2/serverless')).json().endpoints as { name: string }[];
  assert.deepEqual(
    listed.map((e) => e.name),
    ['plain'],
    'nothing was stored',
  );
});

test('a job may carry a NUL in its input; its webhook URL may not', async () => {
  const run = await h.call('POST', `/v2/${endpointId}/run`, { input: { 'k\u0000': 'v\u0000' } });
  assert.equal(run.statusCode, 200, run.body);
  const status = await h.call('GET', `/v2/${endpointId}/status/${run.json().id as string}`);
  assert.deepEqual(status.json().input, undefined, 'status does not show input');
  const job = await h.services.store.jobs.get(run.json().id as string);
  assert.deepEqual(JSON.parse(job!.input), { 'k\u0000': 'v\u0000' });

  const hooked = await h.call('POST', `/v2/${endpointId}/run`, { input: {}, webhook: 'http://example.com/\u0000' });
  assert.equal(hooked.statusCode, 400, hooked.body);
  assert.deepEqual(problem(hooked).errors, ['webhook: must not contain a NUL character']);
});

test('a GraphQL operation with a NUL in a string literal or a variable is refused before it runs', async () => {
  const literal = (await graphql(h, 'mutation { deleteTemplate(templateName: "x\\u0000") }')).json();
  assert.equal(literal.errors[0].extensions.code, 'BAD_USER_INPUT');
  assert.deepEqual(literal.errors[0].extensions.errors, ['a string at line 1: must not contain a NUL character']);
  const variable = (
    await graphql(h, 'query ($id: String!) { pod(input: { podId: $id }) { id } }', { variables: { id: 'a\u0000' } })
  ).json();
  assert.deepEqual(variable.errors[0].extensions.errors, ['$id: must not contain a NUL character']);
  assert.equal(variable.data, null);
});

test("a worker's error with a NUL still fails its job, the NUL shown as U+FFFD; a batch item whose id holds one is refused alone", async () => {
  const g = await startLive({ takeWaitMs: '200' });
  try {
    const submit = async () => (await g.queue('POST', '/run', { input: {} })).json.id as string;
    const [one, two] = [await submit(), await submit()];
    const taken = (await g.worker('GET', '/job-take-batch/wn?batch_size=2&job_in_progress=0')).json as { id: string }[];
    assert.equal(taken.length, 2);
    const done = await g.worker('POST', `/job-done/wn/${one}?gpu=none`, JSON.stringify({ error: 'bad \u0000 byte' }));
    assert.equal(done.status, 200);
    const failed = (await g.queue('GET', `/status/${one}`)).json;
    assert.deepEqual([failed.status, failed.error], ['FAILED', 'bad \uFFFD byte']);
    const answer = await g.worker(
      'POST',
      '/job-done-batch/wn?gpu=none',
      JSON.stringify({
        results: [
          { id: `${two}\u0000`, output: 1 },
          { id: two, output: 2 },
        ],
      }),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.json.results.map((r: { outcome: string }) => r.outcome),
      ['rejected', 'accepted'],
    );
    assert.equal((await g.queue('GET', `/status/${two}`)).json.output, 2);
  } finally {
    await g.close();
  }
});

test('every declared string refuses a NUL, a property named like a keyword too; data keywords are left as they are', () => {
  const schema = {
    type: 'object',
    properties: { title: { type: 'string' }, default: { type: 'string', pattern: '^a' }, n: { type: 'integer' } },
    default: { title: 'x' },
  };
  const refusing = refusingNul(schema) as unknown as typeof schema & {
    properties: { title: { pattern: string }; default: { pattern: string; allOf: { pattern: string }[] }; n: object };
  };
  assert.equal(refusing.properties.title.pattern, NO_NUL_PATTERN);
  assert.deepEqual([refusing.properties.default.pattern, refusing.properties.default.allOf], ['^a', [{ pattern: NO_NUL_PATTERN }]]);
  assert.deepEqual(refusing.properties.n, { type: 'integer' });
  assert.deepEqual(refusing.default, { title: 'x' });
  assert.equal(refusingNul(schema), refusing, 'one copy per schema');
});
