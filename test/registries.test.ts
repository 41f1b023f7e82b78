// Container registry credentials over REST v2: write-only username and password, stored sealed,
// scoped to their account, unique names, references from endpoints and templates that must name
// one of the account's credentials, deletes refused while endpoints pull with one, and the
// hosted API's ECR delegations answered 501.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CATALOG, problem, startHarness, type Harness } from './support/harness.js';
import { storedRows } from './support/stored-rows.js';

const PASSWORD = 'correct-horse-battery-staple';
const USERNAME = 'registry-user-7f3a';

let h: Harness;
let otherKey: string;
let counter = 0;
const uniqueName = () => `cred-${++counter}`;

before(async () => {
  h = await startHarness({ catalogFile: FIXTURE_CATALOG });
  otherKey = await h.newKey({ accountName: 'other' });
});
after(() => h.close());

async function createCredential(extra: Record<string, unknown> = {}, key?: string): Promise<{ id: string; name: string }> {
  const res = await h.call('POST', '/v2/registries', { name: uniqueName(), username: USERNAME, password: PASSWORD, ...extra }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const endpointBody = (extra: Record<string, unknown>) => ({
  name: 'private',
  type: 'QUEUE',
  image: 'registry.example.com/acme/private:1',
  scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
  gpu: { pools: ['ADA_24'] },
  ...extra,
});

describe('the credential itself', () => {
  test('create answers 201 with the id and name only; list and get show nothing more', async () => {
    const res = await h.call('POST', '/v2/registries', { name: 'dockerhub-private', username: USERNAME, password: PASSWORD });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.deepEqual(Object.keys(created).sort(), ['id', 'name']);
    assert.equal(created.name, 'dockerhub-private');
    const got = await h.call('GET', `/v2/registries/${created.id}`);
    assert.deepEqual([got.statusCode, got.json()], [200, created]);
    const listed = await h.call('GET', '/v2/registries');
    assert.ok(listed.json().registries.some((r: unknown) => JSON.stringify(r) === JSON.stringify(created)));
    for (const body of [res.body, got.body, listed.body]) {
      assert.ok(!body.includes(PASSWORD) && !body.includes(USERNAME), `write-only: ${body}`);
    }
  });

  test('the database holds the username and password sealed, never as plain text', async () => {
    const { id } = await createCredential();
    const row = (await storedRows(h, 'registry_auths')).find((r) => r.id === id);
    assert.ok(row, 'the row is there');
    const text = JSON.stringify(row);
    assert.ok(!text.includes(PASSWORD) && !text.includes(USERNAME), text);
    assert.match(String(row.sealed_credential), /^gsb1\./);
  });

  test("another account's credential is an unknown id: it is not listed, read or deleted", async () => {
    const theirs = await createCredential({}, otherKey);
    assert.ok(!(await h.call('GET', '/v2/registries')).json().registries.some((r: { id: string }) => r.id === theirs.id));
    const read = await h.call('GET', `/v2/registries/${theirs.id}`);
    assert.deepEqual(problem(read), { title: 'Not Found', status: 404, detail: `registry credential ${theirs.id} not found` });
    assert.equal((await h.call('DELETE', `/v2/registries/${theirs.id}`)).statusCode, 404);
    assert.equal((await h.call('GET', `/v2/registries/${theirs.id}`, undefined, otherKey)).statusCode, 200, 'still there for its owner');
  });

  test('a name is unique within the account (409), and free in another', async () => {
    await createCredential({ name: 'shared-name' });
    const again = await h.call('POST', '/v2/registries', { name: 'shared-name', username: 'u', password: 'p' });
    assert.deepEqual(problem(again), {
      title: 'Conflict',
      status: 409,
      detail: "a registry credential named 'shared-name' already exists in this account",
      errors: ["name: 'shared-name' is already used by another registry credential of this account"],
    });
    await createCredential({ name: 'shared-name' }, otherKey);
  });

  test('a body missing fields or with unknown ones is refused listing every problem, without echoing secrets', async () => {
    const res = await h.call('POST', '/v2/registries', { name: '', password: PASSWORD, token: 'x' });
    const body = problem(res);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(
      body.errors?.slice().sort(),
      ['name: must NOT have fewer than 1 characters', 'token: unknown property', 'username: is required'].sort(),
    );
    assert.ok(!res.body.includes(PASSWORD));
  });

  test('delete answers 204, then the id is unknown', async () => {
    const { id } = await createCredential();
    assert.equal((await h.call('DELETE', `/v2/registries/${id}`)).statusCode, 204);
    assert.equal((await h.call('GET', `/v2/registries/${id}`)).statusCode, 404);
    assert.equal((await h.call('DELETE', `/v2/registries/${id}`)).statusCode, 404);
  });

  test('a read-only key lists credentials but cannot create one', async () => {
    const readKey = await h.newKey({ permission: 'read' });
    assert.equal((await h.call('GET', '/v2/registries', undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('POST', '/v2/registries', { name: uniqueName(), username: 'u', password: 'p' }, readKey)).statusCode, 403);
  });
});

describe('references from endpoints and templates', () => {
  test("an endpoint's registry must be one of the account's credentials", async () => {
    const theirs = await createCredential({}, otherKey);
    for (const registry of ['nosuchcred', theirs.id]) {
      const res = await h.call('POST', '/v2/serverless', endpointBody({ registry }));
      assert.deepEqual(problem(res), {
        title: 'Not Found',
        status: 404,
        detail: `registry credential ${registry} not found`,
        errors: [`registry: no registry credential ${registry} in this account`],
      });
    }
    const mine = await createCredential();
    const created = await h.call('POST', '/v2/serverless', endpointBody({ registry: mine.id }));
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().registry, mine.id);
    const patched = await h.call('PATCH', `/v2/serverless/${created.json().id}`, { registry: 'nosuchcred' });
    assert.equal(patched.statusCode, 404);
    assert.equal((await h.call('GET', `/v2/serverless/${created.json().id}`)).json().registry, mine.id, 'unchanged');
    assert.equal((await h.call('PATCH', `/v2/serverless/${created.json().id}`, { registry: null })).json().registry, null);
  });

  test("a template's registry must be one of the account's credentials too", async () => {
    const bad = await h.call('POST', '/v2/templates', { name: 'tpl-bad-registry', image: 'x/y', registry: 'nosuchcred' });
    assert.equal(problem(bad).status, 404);
    const mine = await createCredential();
    const ok = await h.call('POST', '/v2/templates', { name: 'tpl-registry', image: 'x/y', registry: mine.id });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal((await h.call('PATCH', `/v2/templates/${ok.json().id}`, { registry: 'nosuchcred' })).statusCode, 404);
  });

  test('a credential endpoints pull with cannot be deleted: 400 names them', async () => {
    const { id } = await createCredential();
    const endpoint = (await h.call('POST', '/v2/serverless', endpointBody({ name: 'pulls-privately', registry: id }))).json();
    const refused = await h.call('DELETE', `/v2/registries/${id}`);
    assert.deepEqual(problem(refused), {
      title: 'Bad Request',
      status: 400,
      detail: `registry credential ${id} is in use by endpoint ${endpoint.id} ('pulls-privately'): set their registry to another credential or null first`,
      errors: [`endpoint ${endpoint.id} ('pulls-privately') pulls its image with registry credential ${id}`],
    });
    assert.equal((await h.call('GET', `/v2/registries/${id}`)).statusCode, 200);
    await h.call('DELETE', `/v2/serverless/${endpoint.id}`);
    assert.equal((await h.call('DELETE', `/v2/registries/${id}`)).statusCode, 204);
  });

  test("deleting a credential a template names clears the template's registry", async () => {
    const { id } = await createCredential();
    const template = (await h.call('POST', '/v2/templates', { name: 'tpl-loses-registry', image: 'x/y', registry: id })).json();
    assert.equal((await h.call('DELETE', `/v2/registries/${id}`)).statusCode, 204);
    assert.equal((await h.call('GET', `/v2/templates/${template.id}`)).json().registry, null);
  });

  test("the runtime gets the endpoint's login opened, and nothing for an endpoint without a registry", async () => {
    const { id, name } = await createCredential();
    const endpoint = (await h.call('POST', '/v2/serverless', endpointBody({ registry: id }))).json();
    assert.deepEqual(await h.services.registryAuths.loginFor(endpoint.id), {
      username: USERNAME,
      password: PASSWORD,
      label: `registry credential ${id} ('${name}')`,
    });
    const plain = (await h.call('POST', '/v2/serverless', endpointBody({}))).json();
    assert.equal(await h.services.registryAuths.loginFor(plain.id), undefined);
  });
});

test('ECR delegations are not offered: every delegation route answers 501 problem+json saying so', async () => {
  for (const [method, url] of [
    ['GET', '/v2/registries/delegations'],
    ['POST', '/v2/registries/delegations'],
    ['DELETE', '/v2/registries/delegations/deleg_abc'],
  ] as const) {
    const res = await h.call(method, url, method === 'POST' ? { resource: 'arn:aws:ecr:us-east-2:1:repository/x' } : undefined);
    const body = problem(res);
    assert.equal(body.status, 501, `${method} ${url}`);
    assert.match(body.detail, /ECR delegations are not offered by Gantry/);
  }
});
