// POST /graphql as RunPod's clients call it: the key in ?api_key= or a Bearer header, {query}
// alone or with variables (null too); 401 only when authentication fails, every other failure a
// 200 with GraphQL errors in the documented shape; deprecation headers on every answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { startHarness, type Harness } from './support/harness.js';
import { graphql, sdkCreateTemplate, SDK_GET_POD, SDK_GET_PODS, SDK_GET_USER } from './support/graphql-clients.js';

let h: Harness;
before(async () => {
  h = await startHarness({ rateLimitMinute: '40' });
});
after(() => h.close());

function assertDeprecated(res: LightMyRequestResponse): void {
  assert.equal(res.headers.deprecation, '@1767225600');
  assert.equal(res.headers.sunset, 'Fri, 01 Jan 2027 00:00:00 GMT');
  assert.ok(!Number.isNaN(Date.parse(String(res.headers.sunset))), 'an HTTP-date');
}

interface ErrorBody {
  data: unknown;
  errors: { message: string; locations?: unknown[]; path?: string[]; extensions: { code: string } }[];
}

/** The minute window's remaining requests and seconds to its reset. */
const minuteOf = (res: LightMyRequestResponse) => /"minute";r=(\d+);t=(\d+)/.exec(String(res.headers.ratelimit))!.slice(1).map(Number);

/**
 * The minute window's remaining requests after a read, once it has at least 5 s to run: windows
 * are clock minutes, and a test that starts early enough in one ends in it.
 */
async function minuteWithTimeLeft(key: string): Promise<number> {
  for (;;) {
    const [remaining, resetIn] = minuteOf(await graphql(h, '{ myself { id } }', { key }));
    if (resetIn! >= 5) return remaining!;
    await new Promise((resolve) => setTimeout(resolve, (resetIn! + 1) * 1000));
  }
}

function errorsOf(res: LightMyRequestResponse, status = 200): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  assertDeprecated(res);
  const body = res.json() as ErrorBody;
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, res.body);
  for (const error of body.errors) assert.equal(typeof error.message, 'string');
  return body;
}

test('another method than POST is 405 with Allow: POST, deprecated as every answer', async () => {
  for (const method of ['GET', 'PUT'] as const) {
    const res = await h.app.inject({ method, url: `/graphql?api_key=${h.adminKey}` });
    assert.equal(res.statusCode, 405, method);
    assert.equal(res.headers.allow, 'POST');
    assertDeprecated(res);
    assert.match(res.json().detail, /send operations with POST/);
  }
});

describe('authentication', () => {
  test('runpodctl: ?api_key= with {query, variables: null} reads myself', async () => {
    const res = await graphql(h, 'query { myself { id email } }', { client: 'runpodctl' });
    assert.equal(res.statusCode, 200, res.body);
    assertDeprecated(res);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.json(), { data: { myself: { id: h.adminAccountId, email: null } } });
    assert.ok(res.headers.ratelimit, 'rate-limit headers as on REST');
  });

  test('Python SDK: Authorization: Bearer with {query} alone; every selected root field is present', async () => {
    const res = await graphql(h, SDK_GET_USER);
    assert.equal(res.statusCode, 200, res.body);
    assertDeprecated(res);
    assert.deepEqual(res.json(), { data: { myself: { id: h.adminAccountId, pubKey: '', networkVolumes: [] } } });
  });

  test('a missing, empty, unknown or revoked key answers 401 with a GraphQL error, still deprecated', async () => {
    const revoked = await h.services.apiKeys.create({ name: 'to revoke' });
    await h.services.store.revokeApiKey(revoked.record.id, new Date().toISOString());
    const answers = [
      await h.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ myself { id } }' } }),
      await h.app.inject({ method: 'POST', url: '/graphql?api_key=', payload: { query: '{ myself { id } }' } }),
      await graphql(h, '{ myself { id } }', { key: 'gantry_000000000000_notakeynotakeynotakeynotakeynotakeynotakey0' }),
      await graphql(h, '{ myself { id } }', { key: revoked.token, client: 'runpodctl' }),
    ];
    for (const res of answers) {
      const body = errorsOf(res, 401);
      assert.equal(body.errors[0]!.extensions.code, 'UNAUTHENTICATED');
    }
  });

  test('a read-only key queries but cannot mutate: FORBIDDEN, and nothing is created', async () => {
    const readOnly = await h.newKey({ permission: 'read' });
    assert.equal((await graphql(h, '{ myself { id } }', { key: readOnly })).statusCode, 200);
    const body = errorsOf(await graphql(h, sdkCreateTemplate({ name: 'ro-attempt', imageName: 'x/y:1' }), { key: readOnly }));
    assert.deepEqual(
      body.errors.map((e) => e.extensions.code),
      ['FORBIDDEN'],
    );
    assert.equal(body.data, null);
    const listed = (await h.call('GET', '/v2/templates')).json().templates as { name: string }[];
    assert.ok(!listed.some((t) => t.name === 'ro-attempt'));
  });

  test('rate limits count GraphQL calls as REST calls; over the limit is RATE_LIMITED with Retry-After', async () => {
    const key = await h.newKey({ accountName: 'graphql-rate-limited' });
    // Windows are clock minutes: a run crossing one boundary is limited within twice the quota.
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 81; i++) {
      last = await graphql(h, '{ myself { id } }', { key, client: i % 2 ? 'sdk' : 'runpodctl' });
      if ('errors' in last.json()) break;
    }
    const body = errorsOf(last!);
    assert.equal(body.errors[0]!.extensions.code, 'RATE_LIMITED');
    assert.ok(Number(last!.headers['retry-after']) > 0);
    assert.equal((await h.call('GET', '/v2/templates', undefined, key)).statusCode, 429, 'the same budget as REST');
  });

  test('each root field counts as a request: aliased mutations past the window are refused whole, and nothing runs', async () => {
    const key = await h.newKey({ accountName: 'graphql-aliases' });
    const saves = (prefix: string, count: number) =>
      `mutation { ${Array.from({ length: count }, (_, i) => `a${i}: saveRegistryAuth(input: {name: "${prefix}-${i}", username: "u", password: "p"}) { id }`).join(' ')} }`;
    const before = await minuteWithTimeLeft(key);
    const three = await graphql(h, saves('three', 3), { key });
    assert.equal(Object.keys(three.json().data).length, 3, three.body);
    const [left] = minuteOf(three);
    assert.equal(left, before - 3, 'three saves counted');

    const whole = errorsOf(await graphql(h, saves('whole', 41), { key }));
    assert.equal(whole.errors[0]!.extensions.code, 'BAD_USER_INPUT');
    assert.match(whole.errors[0]!.message, /counts as 41 requests, more than the minute quota of 40/);
    const refused = await graphql(h, saves('refused', left! + 1), { key });
    const body = errorsOf(refused);
    assert.equal(body.errors[0]!.extensions.code, 'RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(body.data, null);
    // Read with an exempt key of the same account: the window is spent.
    const exempt = await h.newKey({ accountName: 'graphql-aliases', rateLimitExempt: true });
    const read = await graphql(h, '{ myself { containerRegistryCreds { name } } }', { key: exempt });
    const stored = (read.json().data.myself.containerRegistryCreds as { name: string }[]).map((c) => c.name).sort();
    assert.deepEqual(stored, ['three-0', 'three-1', 'three-2'], 'neither refused document saved anything');
  });

  test('root fields that @skip or @include leave out neither run nor count', async () => {
    const key = await h.newKey({ accountName: 'graphql-skips' });
    const save = (name: string, directive: string) =>
      `${name}: saveRegistryAuth(input: {name: "${name}", username: "u", password: "p"}) ${directive} { name }`;
    const query = `mutation M($leaveOut: Boolean!) {
      ${save('skipped', '@skip(if: $leaveOut)')}
      ${save('included', '@include(if: $leaveOut)')}
      ... on Mutation @include(if: false) { ${save('never', '')} }
    }`;
    const before = await minuteWithTimeLeft(key);
    const ran = await graphql(h, query, { key, variables: { leaveOut: true } });
    assert.deepEqual(ran.json().data, { included: { name: 'included' } }, ran.body);
    assert.equal(minuteOf(ran)[0], before - 1, 'one field ran, one request counted');
    // A variable of the wrong type runs nothing: the document is the one request it is.
    const wrong = await graphql(h, query, { key, variables: { leaveOut: 'yes' } });
    assert.equal(errorsOf(wrong).errors[0]!.extensions.code, 'BAD_USER_INPUT');
    assert.equal(minuteOf(wrong)[0], before - 2);
  });
});

describe('documents', () => {
  test('a name containing " is a parse error, not a 500', async () => {
    const res = await graphql(h, sdkCreateTemplate({ name: 'my "quoted" template', imageName: 'x/y:1' }));
    const body = errorsOf(res);
    assert.equal(body.errors[0]!.extensions.code, 'GRAPHQL_PARSE_FAILED');
    assert.match(body.errors[0]!.message, /^Syntax Error/);
    assert.equal(body.data, null);
    assert.ok(body.errors[0]!.locations?.length);
  });

  test('unknown fields and missing arguments are validation errors naming them', async () => {
    const body = errorsOf(await graphql(h, '{ myself { id creditBalance } }'));
    assert.equal(body.errors[0]!.extensions.code, 'GRAPHQL_VALIDATION_FAILED');
    assert.match(body.errors[0]!.message, /creditBalance/);
  });

  test("variables work as runpodctl sends them, and a variable of the wrong type is the caller's error", async () => {
    const query = 'mutation SaveRegistryAuth($input: SaveRegistryAuthInput!) { saveRegistryAuth(input: $input) { id name } }';
    const res = await graphql(h, query, {
      client: 'runpodctl',
      variables: { input: { name: 'via-variables', username: 'u', password: 'p' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.saveRegistryAuth.name, 'via-variables');
    const wrong = errorsOf(await graphql(h, query, { client: 'runpodctl', variables: { input: { name: 3 } } }));
    assert.equal(wrong.errors[0]!.extensions.code, 'BAD_USER_INPUT');
  });

  test('a body that is not a GraphQL request is a GraphQL error with status 200, counted as a request', async () => {
    const key = await h.newKey({ accountName: 'graphql-bad-bodies' });
    let left = await minuteWithTimeLeft(key);
    for (const payload of [
      '{"query":',
      JSON.stringify({ variables: {} }),
      JSON.stringify({ query: '{ myself { id } }', variables: [1] }),
    ]) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(errorsOf(res).errors[0]!.extensions.code, 'BAD_REQUEST', payload);
      assert.equal(minuteOf(res)[0], --left, payload);
    }
  });
});

describe('operations Gantry does not offer', () => {
  test('without the Docker provider, pod operations answer NOT_IMPLEMENTED naming the operation and the flag', async () => {
    const documents: [string, string][] = [
      [
        'podFindAndDeployOnDemand',
        `mutation { podFindAndDeployOnDemand( input: { name: "p", imageName: "x/y", cloudType: ALL, dataCenterId: null, gpuTypeId: "NVIDIA L4", gpuCount: 1, supportPublicIp: true, allowedCudaVersions: ["12.4"] } ) { id imageName env machineId machine { podHostId } } }`,
      ],
      [
        'deployCpuPod',
        `mutation { deployCpuPod( input: { name: "p", imageName: "x/y", cloudType: SECURE, instanceId: "cpu3c-2-4", templateId: "runpod-ubuntu" } ) { id } }`,
      ],
      ['podStop', `mutation { podStop(input: {podId: "abc"}) { id desiredStatus } }`],
      [
        'podResume',
        `mutation { podResume(input: {podId: "abc", gpuCount: 1}) { id desiredStatus imageName env machineId machine { podHostId } } }`,
      ],
      ['podTerminate', `mutation { podTerminate(input: {podId: "abc"}) }`],
      ['pod', SDK_GET_POD('abc')],
    ];
    for (const [name, document] of documents) {
      const body = errorsOf(await graphql(h, document));
      assert.equal(body.errors.length, 1);
      assert.equal(body.errors[0]!.extensions.code, 'NOT_IMPLEMENTED', name);
      assert.deepEqual(body.errors[0]!.path, [name]);
      assert.match(body.errors[0]!.message, /pods need the Docker worker provider: start Gantry with --worker-provider docker/, name);
    }
  });

  test('spot pods answer NOT_IMPLEMENTED whatever their arguments', async () => {
    for (const [name, document] of [
      ['podRentInterruptable', `mutation { podRentInterruptable(input: {bidPerGpu: 0.2, gpuCount: 1}) { id } }`],
      ['podBidResume', `mutation { podBidResume(input: {podId: "abc", bidPerGpu: 0.2}) { id } }`],
    ]) {
      const body = errorsOf(await graphql(h, document!));
      assert.equal(body.errors[0]!.extensions.code, 'NOT_IMPLEMENTED', name);
      assert.deepEqual(body.errors[0]!.path, [name]);
      assert.match(body.errors[0]!.message, new RegExp(`^${name} is not offered by Gantry: it has no spot`));
    }
  });

  test('myself.pods is an empty list with every field the SDK selects', async () => {
    const res = await graphql(h, SDK_GET_PODS);
    assert.deepEqual(res.json(), { data: { myself: { pods: [] } } });
  });
});
