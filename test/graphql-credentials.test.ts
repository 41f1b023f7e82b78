// An account's credentials over GraphQL as the SDK and runpodctl handle them: SSH public keys
// (get_user, update_user_settings) and container registry logins (saveRegistryAuth,
// updateRegistryAuth, deleteRegistryAuth), with REST v2 and the runtime seeing the same.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { graphql, sdkUpdateUserSettings, SDK_GET_USER } from './support/graphql-clients.js';
import { anSshKey } from './support/ssh-keys.js';
import { data, firstError, h, unique, useGraphqlHarness, type Row } from './support/graphql-harness.js';

useGraphqlHarness();

describe('SSH keys', () => {
  test('runpod ssh add-key: get_user reads pubKey, appends, update_user_settings writes it; REST reads the same keys', async () => {
    const key = await h.newKey({ accountName: 'ssh-graphql' });
    const first = anSshKey('laptop');
    const current = ((await data(SDK_GET_USER, { key })).myself as Row).pubKey as string;
    assert.equal(current, '');
    const written = await data(sdkUpdateUserSettings(`${current}\n\n${first}`), { key });
    assert.deepEqual((written.updateUserSettings as Row).pubKey as string, first);
    const second = anSshKey('desktop');
    await data(sdkUpdateUserSettings(`${first}\n\n${second}`), { key });
    assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [first, second] });

    const third = anSshKey('ci');
    await h.call('PUT', '/v2/account/ssh-keys', { keys: [third] }, key);
    assert.equal(((await data(SDK_GET_USER, { key, client: 'runpodctl' })).myself as Row).pubKey, third);
  });

  test('a line that is not a key is refused naming it; the keys stay as they were', async () => {
    const key = await h.newKey({ accountName: 'ssh-graphql-bad' });
    const kept = anSshKey('kept');
    await data(sdkUpdateUserSettings(kept), { key });
    const error = firstError((await graphql(h, sdkUpdateUserSettings(`${kept}\nssh-rsa not-a-key`), { key })).json());
    assert.equal(error.extensions.code, 'BAD_USER_INPUT');
    assert.ok(error.extensions.errors?.[0]?.startsWith('pubKey[1]: '), JSON.stringify(error));
    assert.deepEqual((await h.call('GET', '/v2/account/ssh-keys', undefined, key)).json(), { keys: [kept] });
  });
});

describe('container registry credentials', () => {
  test('create, rotate and delete as the SDK does; REST and the runtime see each step', async () => {
    const name = unique('registry');
    const saved = (
      await data(
        `mutation SaveRegistryAuth { saveRegistryAuth(input: {name: "${name}", username: "alice", password: "first"}) { id name } }`,
      )
    ).saveRegistryAuth as Row;
    assert.equal(saved.name, name);
    assert.deepEqual((await h.call('GET', `/v2/registries/${String(saved.id)}`)).json(), saved);
    const endpoint = (
      await h.call('POST', '/v2/serverless', {
        name: unique('private'),
        type: 'QUEUE',
        image: 'registry.example.com/p:1',
        registry: saved.id,
        gpu: { pools: ['AMPERE_16'] },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
      })
    ).json();

    const rotated = await data(
      `mutation UpdateRegistryAuth { updateRegistryAuth(input: {id: "${String(saved.id)}", username: "bob", password: "second"}) { id name } }`,
    );
    assert.deepEqual(rotated, { updateRegistryAuth: saved });
    const login = await h.services.registryAuths.loginFor(endpoint.id);
    assert.deepEqual([login?.username, login?.password], ['bob', 'second']);

    const refused = firstError((await graphql(h, `mutation { deleteRegistryAuth(registryAuthId: "${String(saved.id)}") }`)).json());
    assert.equal(refused.extensions.code, 'BAD_USER_INPUT');
    assert.match(refused.message, new RegExp(`in use by endpoint ${endpoint.id}`));
    await h.call('DELETE', `/v2/serverless/${endpoint.id}`);
    assert.deepEqual(await data(`mutation { deleteRegistryAuth(registryAuthId: "${String(saved.id)}") }`), { deleteRegistryAuth: true });
    assert.equal((await h.call('GET', `/v2/registries/${String(saved.id)}`)).statusCode, 404);
  });

  test('a credential of another account cannot be rotated: NOT_FOUND', async () => {
    const theirs = await h.newKey({ accountName: 'registry-stranger' });
    const saved = (
      await data(`mutation { saveRegistryAuth(input: {name: "theirs", username: "u", password: "p"}) { id } }`, { key: theirs })
    ).saveRegistryAuth as Row;
    const error = firstError(
      (await graphql(h, `mutation { updateRegistryAuth(input: {id: "${String(saved.id)}", username: "x", password: "y"}) { id } }`)).json(),
    );
    assert.equal(error.extensions.code, 'NOT_FOUND');
  });
});
