// Every union (oneOf/anyOf/discriminator) field of the management API rejects values of the wrong
// JSON type with 422 before anything is stored, and a stored row that does not fit its response
// schema cannot turn a whole list into a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';
import type { CreateEndpointInput } from '../src/domain/endpoint-rules.js';

const endpointBody = {
  name: 'e',
  type: 'QUEUE',
  image: 'acme/w:1',
  gpu: { pools: ['ADA_24'] },
  scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
};
const templateBody = { name: 't', image: 'acme/w:1' };
const NOT_OBJECTS = [0, -1, '', 'QUEUE_DELAY', [], [{ type: 'QUEUE_DELAY', queueDelay: 4 }], true, false, null];
const NOT_STRING_OR_NULL = [0, true, [], {}, ''];

let h: Harness;
before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG });
});
after(() => h.close());

async function assertRejected(method: string, url: string, body: unknown, field: string) {
  const res = await h.call(method, url, body);
  assert.equal(res.statusCode, 422, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`);
  assert.ok(
    problem(res).errors?.some((line) => line.startsWith(`${field}:`)),
    res.body,
  );
}

async function assertListsStillWork() {
  for (const url of ['/v2/serverless', '/v2/templates']) {
    const res = await h.call('GET', url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  }
}

describe('union fields reject values of the wrong type', () => {
  let endpointId = '';
  let templateId = '';
  before(async () => {
    endpointId = (await h.call('POST', '/v2/serverless', endpointBody)).json().id;
    templateId = (await h.call('POST', '/v2/templates', templateBody)).json().id;
  });

  const cases: { field: string; values: unknown[]; targets: (() => [string, string, Record<string, unknown>])[] }[] = [
    {
      field: 'scaling',
      values: NOT_OBJECTS,
      targets: [() => ['POST', '/v2/serverless', endpointBody], () => ['PATCH', `/v2/serverless/${endpointId}`, {}]],
    },
    {
      field: 'registry',
      values: NOT_STRING_OR_NULL,
      targets: [
        () => ['POST', '/v2/serverless', endpointBody],
        () => ['PATCH', `/v2/serverless/${endpointId}`, {}],
        () => ['POST', '/v2/templates', templateBody],
        () => ['PATCH', `/v2/templates/${templateId}`, {}],
      ],
    },
  ];

  for (const { field, values, targets } of cases) {
    test(`${field}: ${values.map((v) => JSON.stringify(v)).join(' ')}`, async () => {
      for (const target of targets) {
        for (const value of values) {
          const [method, url, base] = target();
          await assertRejected(method, url, { ...base, [field]: value }, field);
        }
      }
      await assertListsStillWork();
      const one = await h.call('GET', `/v2/serverless/${endpointId}`);
      assert.equal(one.statusCode, 200, one.body);
    });
  }
});

describe('a stored row that does not fit the response schema', () => {
  test('is left out of the list instead of failing it', async () => {
    const good = (await h.call('POST', '/v2/serverless', { ...endpointBody, name: 'good' })).json().id;
    // Stored past the HTTP validation, as an older version with the scaling bug could have done.
    const bad = await h.services.endpoints.create(h.adminAccountId, {
      ...endpointBody,
      name: 'bad',
      scaling: 0,
    } as unknown as CreateEndpointInput);
    const res = await h.call('GET', '/v2/serverless');
    assert.equal(res.statusCode, 200, res.body);
    const ids = (res.json().endpoints as { id: string }[]).map((e) => e.id);
    assert.ok(ids.includes(good));
    assert.ok(!ids.includes(bad.id));
    const one = await h.call('GET', `/v2/serverless/${bad.id}`);
    assert.equal(one.statusCode, 500);
    problem(one);
  });
});
