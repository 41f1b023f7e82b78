// Per-account secrets over REST: write-only values stored sealed, names unique within an account,
// rotation, references from endpoint and template env values that must name the account's
// secrets, deletes refused while referenced, and env shown as stored, never resolved.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';
import { storedRows } from './support/stored-rows.js';

const VALUE = 'hf_Qx7secretTokenValue91';

let h: Harness;
let otherKey: string;
let counter = 0;
const uniqueName = () => `secret_${++counter}`;

before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG });
  otherKey = await h.newKey({ accountName: 'other' });
});
after(() => h.close());

async function createSecret(
  name = uniqueName(),
  value = VALUE,
  key?: string,
): Promise<{ name: string; createdAt: string; updatedAt: string }> {
  const res = await h.call('POST', '/v2/secrets', { name, value }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const endpointBody = (extra: Record<string, unknown>) => ({
  name: 'uses-secrets',
  type: 'QUEUE',
  image: 'acme/model:1',
  scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
  gpu: { pools: ['ADA_24'] },
  ...extra,
});

describe('the secret itself', () => {
  test('create answers 201 with the name and times only; list and get show nothing more', async () => {
    const res = await h.call('POST', '/v2/secrets', { name: 'hf_token', value: VALUE });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'name', 'updatedAt']);
    assert.equal(created.name, 'hf_token');
    assert.equal(created.createdAt, created.updatedAt);
    const got = await h.call('GET', '/v2/secrets/hf_token');
    assert.deepEqual([got.statusCode, got.json()], [200, created]);
    const listed = await h.call('GET', '/v2/secrets');
    assert.deepEqual(
      listed.json().secrets.find((s: { name: string }) => s.name === 'hf_token'),
      created,
    );
    for (const body of [res.body, got.body, listed.body]) assert.ok(!body.includes(VALUE), `write-only: ${body}`);
  });

  test('the database holds the value sealed, never as plain text', async () => {
    const { name } = await createSecret();
    const row = (await storedRows(h, 'secrets')).find((r) => r.name === name);
    assert.ok(row, 'the row is there');
    assert.ok(!JSON.stringify(row).includes(VALUE), JSON.stringify(row));
    assert.match(String(row.sealed_value), /^gsb1\./);
  });

  test("another account's secret is an unknown name: not listed, read, rotated or deleted", async () => {
    const theirs = await createSecret(uniqueName(), 'theirs', otherKey);
    assert.ok(!(await h.call('GET', '/v2/secrets')).json().secrets.some((s: { name: string }) => s.name === theirs.name));
    assert.deepEqual(problem(await h.call('GET', `/v2/secrets/${theirs.name}`)), {
      title: 'Not Found',
      status: 404,
      detail: `secret '${theirs.name}' not found`,
    });
    assert.equal((await h.call('PATCH', `/v2/secrets/${theirs.name}`, { value: 'hijack' })).statusCode, 404);
    assert.equal((await h.call('DELETE', `/v2/secrets/${theirs.name}`)).statusCode, 404);
    assert.equal((await h.call('GET', `/v2/secrets/${theirs.name}`, undefined, otherKey)).statusCode, 200, 'still there for its owner');
  });

  test('a name is unique within the account (409), and free in another', async () => {
    await createSecret('shared_name');
    const again = await h.call('POST', '/v2/secrets', { name: 'shared_name', value: 'other' });
    assert.deepEqual(problem(again), {
      title: 'Conflict',
      status: 409,
      detail: "a secret named 'shared_name' already exists in this account",
      errors: ["name: 'shared_name' is already used by another secret of this account"],
    });
    await createSecret('shared_name', VALUE, otherKey);
  });

  test('bad names and bodies answer 422 listing every problem, without echoing the value', async () => {
    for (const name of ['1starts-with-digit', 'has/slash', 'RUNPOD_RESERVED', 'x'.repeat(192)]) {
      const res = await h.call('POST', '/v2/secrets', { name, value: VALUE });
      assert.equal(res.statusCode, 422, name);
      assert.ok(!res.body.includes(VALUE));
      if (name.length < 192) {
        assert.deepEqual(problem(res).errors, [
          'name: must start with a letter or _, then letters, digits, _ . or -; names starting with RUNPOD (any case) are reserved',
        ]);
      }
    }
    const res = await h.call('POST', '/v2/secrets', { name: 'ok_name', value: '', note: VALUE });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(problem(res).errors?.slice().sort(), ['note: unknown property', 'value: must NOT have fewer than 1 characters']);
  });

  test('rotate sets a new value and updatedAt; the value stays write-only', async () => {
    const created = await createSecret();
    const before = (await storedRows(h, 'secrets')).find((r) => r.name === created.name)!.sealed_value;
    const res = await h.call('PATCH', `/v2/secrets/${created.name}`, { value: 'rotated-value-42' });
    assert.equal(res.statusCode, 200, res.body);
    const rotated = res.json();
    assert.equal(rotated.createdAt, created.createdAt);
    assert.ok(rotated.updatedAt >= created.updatedAt);
    assert.ok(!res.body.includes('rotated-value-42'));
    const after = (await storedRows(h, 'secrets')).find((r) => r.name === created.name)!.sealed_value;
    assert.notEqual(after, before);
    assert.equal((await h.call('PATCH', '/v2/secrets/no_such_secret', { value: 'x' })).statusCode, 404);
  });

  test('delete answers 204, then the name is unknown', async () => {
    const { name } = await createSecret();
    assert.equal((await h.call('DELETE', `/v2/secrets/${name}`)).statusCode, 204);
    assert.equal((await h.call('GET', `/v2/secrets/${name}`)).statusCode, 404);
    assert.equal((await h.call('DELETE', `/v2/secrets/${name}`)).statusCode, 404);
  });

  test('a read-only key lists secrets but cannot create, rotate or delete one', async () => {
    const { name } = await createSecret();
    const readKey = await h.newKey({ permission: 'read' });
    assert.equal((await h.call('GET', '/v2/secrets', undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('POST', '/v2/secrets', { name: uniqueName(), value: 'v' }, readKey)).statusCode, 403);
    assert.equal((await h.call('PATCH', `/v2/secrets/${name}`, { value: 'v' }, readKey)).statusCode, 403);
    assert.equal((await h.call('DELETE', `/v2/secrets/${name}`, undefined, readKey)).statusCode, 403);
  });
});

describe('references from endpoint and template env values', () => {
  test('an endpoint may reference only secrets of its account: 404 lists every unknown reference', async () => {
    const known = await createSecret();
    const theirs = await createSecret(uniqueName(), 'theirs', otherKey);
    const res = await h.call(
      'POST',
      '/v2/serverless',
      endpointBody({
        env: { TOKEN: `{{ RUNPOD_SECRET_${known.name} }}`, DB: '{{RUNPOD_SECRET_db_pass}}', THEIRS: `{{ RUNPOD_SECRET_${theirs.name} }}` },
      }),
    );
    assert.deepEqual(problem(res), {
      title: 'Not Found',
      status: 404,
      detail: `secrets 'db_pass', '${theirs.name}' not found`,
      errors: ["env.DB: no secret 'db_pass' in this account", `env.THEIRS: no secret '${theirs.name}' in this account`],
    });
  });

  test('GET shows env as stored, with the reference text, never the value', async () => {
    const { name } = await createSecret();
    const env = { HF_TOKEN: `{{ RUNPOD_SECRET_${name} }}`, MODE: 'prod' };
    const created = await h.call('POST', '/v2/serverless', endpointBody({ env }));
    assert.equal(created.statusCode, 201, created.body);
    const got = await h.call('GET', `/v2/serverless/${created.json().id}`);
    assert.deepEqual(got.json().env, env);
    const listed = await h.call('GET', '/v2/serverless');
    for (const body of [created.body, got.body, listed.body]) assert.ok(!body.includes(VALUE));
  });

  test('a PATCH that adds an unknown reference is refused and changes nothing', async () => {
    const endpoint = (await h.call('POST', '/v2/serverless', endpointBody({ env: { MODE: 'a' } }))).json();
    const patched = await h.call('PATCH', `/v2/serverless/${endpoint.id}`, { env: { MODE: 'b', KEY: '{{ RUNPOD_SECRET_missing_key }}' } });
    assert.deepEqual(problem(patched).errors, ["env.KEY: no secret 'missing_key' in this account"]);
    assert.equal(patched.statusCode, 404);
    assert.deepEqual((await h.call('GET', `/v2/serverless/${endpoint.id}`)).json().env, { MODE: 'a' });
  });

  test("a template's env is checked the same way, and an endpoint built on it must resolve the references in its own account", async () => {
    const bad = await h.call('POST', '/v2/templates', {
      name: 'tpl-bad-secret',
      image: 'x/y',
      serverless: true,
      env: { T: '{{ RUNPOD_SECRET_nope }}' },
    });
    assert.deepEqual(problem(bad).errors, ["env.T: no secret 'nope' in this account"]);
    const { name } = await createSecret();
    const tpl = await h.call('POST', '/v2/templates', {
      name: 'tpl-secret',
      image: 'x/y',
      serverless: true,
      public: true,
      env: { T: `{{ RUNPOD_SECRET_${name} }}` },
    });
    assert.equal(tpl.statusCode, 201, tpl.body);
    assert.equal((await h.call('PATCH', `/v2/templates/${tpl.json().id}`, { env: { T: '{{ RUNPOD_SECRET_nope }}' } })).statusCode, 404);
    const mine = await h.call('POST', '/v2/serverless', endpointBody({ templateId: tpl.json().id, image: undefined }));
    assert.equal(mine.statusCode, 201, mine.body);
    // The other account sees the public template, but the secret is not theirs to use.
    const theirs = await h.call('POST', '/v2/serverless', endpointBody({ templateId: tpl.json().id, image: undefined }), otherKey);
    assert.deepEqual(problem(theirs).errors, [`env.T: no secret '${name}' in this account`]);
  });

  test('a secret endpoints or templates reference cannot be deleted: 400 names them', async () => {
    const { name } = await createSecret();
    const endpoint = (
      await h.call('POST', '/v2/serverless', endpointBody({ name: 'needs-token', env: { T: `{{ RUNPOD_SECRET_${name} }}` } }))
    ).json();
    const template = (
      await h.call('POST', '/v2/templates', { name: 'tpl-needs-token', image: 'x/y', env: { T: `{{RUNPOD_SECRET_${name}}}` } })
    ).json();
    const refused = await h.call('DELETE', `/v2/secrets/${name}`);
    assert.deepEqual(problem(refused), {
      title: 'Bad Request',
      status: 400,
      detail: `secret '${name}' is in use by endpoint ${endpoint.id} ('needs-token'), template ${template.id} ('tpl-needs-token'): remove the references from their env first`,
      errors: [
        `endpoint ${endpoint.id} ('needs-token') references {{ RUNPOD_SECRET_${name} }} in its env`,
        `template ${template.id} ('tpl-needs-token') references {{ RUNPOD_SECRET_${name} }} in its env`,
      ],
    });
    await h.call('PATCH', `/v2/serverless/${endpoint.id}`, { env: {} });
    await h.call('DELETE', `/v2/templates/${template.id}`);
    assert.equal((await h.call('DELETE', `/v2/secrets/${name}`)).statusCode, 204);
  });

  test("the runtime gets env values resolved in the endpoint owner's account, and a clear error once a secret is gone", async () => {
    const { name } = await createSecret(uniqueName(), 'first-value');
    const env = { URL: `https://user:{{ RUNPOD_SECRET_${name} }}@hub`, PLAIN: 'x' };
    assert.deepEqual(await h.services.accountSecrets.resolve(h.adminAccountId, env), { URL: 'https://user:first-value@hub', PLAIN: 'x' });
    await h.call('PATCH', `/v2/secrets/${name}`, { value: 'second-value' });
    assert.deepEqual(await h.services.accountSecrets.resolve(h.adminAccountId, env), { URL: 'https://user:second-value@hub', PLAIN: 'x' });
    await h.call('DELETE', `/v2/secrets/${name}`);
    await assert.rejects(h.services.accountSecrets.resolve(h.adminAccountId, env), {
      message: `secret '${name}' referenced in the env does not exist (any more)`,
    });
  });
});
