// Template operations over GraphQL as the SDK and runpodctl send them (create_template,
// saveTemplate with an id, deleteTemplate), with REST v2 reading back the same templates.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { graphql, sdkCreateTemplate } from './support/graphql-clients.js';
import { data, firstError, h, unique, useGraphqlHarness, type Row } from './support/graphql-harness.js';

useGraphqlHarness();

describe('templates', () => {
  test('create_template makes the template REST reads back field for field', async () => {
    const name = unique('sdk-template');
    const made = (
      await data(
        sdkCreateTemplate({
          name,
          imageName: 'acme/app:2',
          dockerStartCmd: 'python -c "print(1)"',
          containerDiskInGb: 20,
          volumeInGb: 15,
          volumeMountPath: '/data',
          ports: '8888/http, 22/tcp',
          env: { A: '1', B: 'two' },
        }),
      )
    ).saveTemplate as Row;
    assert.deepEqual(
      { ...made, id: undefined },
      {
        id: undefined,
        name,
        imageName: 'acme/app:2',
        dockerArgs: 'python -c "print(1)"',
        containerDiskInGb: 20,
        volumeInGb: 15,
        volumeMountPath: '/data',
        ports: '8888/http,22/tcp',
        env: [
          { key: 'A', value: '1' },
          { key: 'B', value: 'two' },
        ],
        isServerless: false,
      },
    );
    const rest = (await h.call('GET', `/v2/templates/${String(made.id)}`)).json();
    assert.equal(rest.image, 'acme/app:2');
    assert.equal(rest.args, 'python -c "print(1)"');
    assert.equal(rest.disk, 20);
    assert.deepEqual(rest.mounts, { persistent: { size: 15, path: '/data' } });
    assert.deepEqual(rest.ports, ['8888/http', '22/tcp']);
    assert.deepEqual(rest.env, { A: '1', B: 'two' });
    assert.equal(rest.registry, null);
    assert.equal(rest.serverless, false);
  });

  test('a template made over REST is listed by myself and changed by saveTemplate with its id', async () => {
    const created = (
      await h.call('POST', '/v2/templates', { name: unique('rest-template'), image: 'acme/rest:1', serverless: true })
    ).json();
    const listed = (await data('query { myself { podTemplates { id name imageName isServerless } } }')).myself as Row;
    assert.ok((listed.podTemplates as Row[]).some((t) => t.id === created.id && t.imageName === 'acme/rest:1' && t.isServerless === true));
    await data(`mutation { saveTemplate(input: { id: "${created.id}", imageName: "acme/rest:2", containerDiskInGb: 15 }) { id } }`);
    const rest = (await h.call('GET', `/v2/templates/${created.id}`)).json();
    assert.deepEqual([rest.image, rest.disk, rest.name], ['acme/rest:2', 15, created.name]);
  });

  test('a name used twice is a CONFLICT; deleteTemplate removes by name', async () => {
    const name = unique('named');
    await data(sdkCreateTemplate({ name, imageName: 'x/y:1' }));
    const again = (await graphql(h, sdkCreateTemplate({ name, imageName: 'x/y:1' }))).json();
    assert.equal(firstError(again).extensions.code, 'CONFLICT');
    assert.deepEqual(firstError(again).path, ['saveTemplate']);
    assert.deepEqual(await data(`mutation { deleteTemplate(templateName: "${name}") }`), { deleteTemplate: true });
    const templates = (await h.call('GET', '/v2/templates')).json().templates as { name: string }[];
    assert.ok(!templates.some((t) => t.name === name));
    assert.equal(
      firstError((await graphql(h, `mutation { deleteTemplate(templateName: "${name}") }`)).json()).extensions.code,
      'NOT_FOUND',
    );
  });

  test('field failures name the GraphQL fields the input used', async () => {
    const body = (await graphql(h, sdkCreateTemplate({ name: unique('bad'), imageName: '', containerDiskInGb: 0 }))).json();
    const error = firstError(body);
    assert.equal(error.extensions.code, 'BAD_USER_INPUT');
    assert.deepEqual(error.extensions.errors?.map((line) => line.split(':')[0]).sort(), ['containerDiskInGb', 'imageName']);
    assert.match(error.message, /containerDiskInGb: /);
    const env = (
      await graphql(h, sdkCreateTemplate({ name: unique('bad-env'), imageName: 'acme/w:1', env: { OK: '1', 'NOT OK': '2' } }))
    ).json();
    assert.deepEqual(
      firstError(env).extensions.errors?.map((line) => line.split(':')[0]),
      ['env[1]'],
    );
  });
});
