// gantry endpoints, templates and registries, run as real processes against a running server:
// what a person sees (tables, records, error messages), what a script gets (--json, --quiet)
// and the exit statuses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startLive, type Live } from './support/live.js';
import { cli } from './support/processes.js';
import { reservePort } from '../src/reserve-port.js';

let g: Live;
let env: Record<string, string>;

before(async () => {
  g = await startLive({ secretKey: randomBytes(32).toString('base64') });
  env = { GANTRY_URL: g.url, GANTRY_API_KEY: g.adminKey };
});
after(() => g.close());

/** The header line and rows of a table, split on its column gaps. */
function table(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

test('create from flags prints only the id with --quiet; list shows it in aligned columns; get and --json agree', async () => {
  const created = await cli(
    [
      'endpoints',
      'create',
      '--name',
      'cli-made',
      '--image',
      'acme/echo:2',
      '--cpu',
      'cpu3c:2',
      '--max-workers',
      '2',
      '--env',
      'MODEL=small',
      '-q',
    ],
    env,
  );
  assert.equal(created.status, 0, created.stderr);
  const id = created.stdout.trim();
  assert.match(id, /^[a-z0-9]+$/, 'only the id');

  const listed = await cli(['endpoints', 'list'], env);
  assert.equal(listed.status, 0, listed.stderr);
  const [header, ...rows] = table(listed.stdout);
  assert.deepEqual(header, ['ID', 'NAME', 'TYPE', 'IMAGE', 'COMPUTE', 'WORKERS', 'SCALING']);
  assert.deepEqual(
    rows.find((row) => row[0] === id),
    [id, 'cli-made', 'QUEUE', 'acme/echo:2', 'cpu3c/2vCPU', '0..2', 'QUEUE_DELAY 4'],
  );
  const lines = listed.stdout.trim().split('\n');
  const imageColumn = lines[0]!.indexOf('IMAGE');
  for (const line of lines.slice(1))
    assert.ok(/^\S/.test(line.slice(imageColumn)) && /\s\s$/.test(line.slice(0, imageColumn)), `aligned: ${line}`);

  const json = await cli(['endpoints', 'list', '--json'], env);
  const endpoint = JSON.parse(json.stdout).endpoints.find((e: { id: string }) => e.id === id);
  assert.deepEqual(endpoint.env, { MODEL: 'small' });
  assert.deepEqual(endpoint.scaling, { type: 'QUEUE_DELAY', queueDelay: 4 }, 'the CLI default scaling');

  const shown = await cli(['endpoints', 'get', id], env);
  assert.match(shown.stdout, /^workers\.max\s+2$/m);
  assert.match(shown.stdout, new RegExp(`^requestUrls\\.run\\s+${g.url}/v2/${id}/run$`, 'm'));
});

test('create from a file on stdin, update a field, delete: the endpoint goes', async () => {
  const body = {
    name: 'from-file',
    type: 'QUEUE',
    image: 'acme/x:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 3 },
  };
  const created = await cli(['endpoints', 'create', '--file', '-', '--json', '--name', 'flag-wins'], env, JSON.stringify(body));
  assert.equal(created.status, 0, created.stderr);
  const endpoint = JSON.parse(created.stdout);
  assert.equal(endpoint.name, 'flag-wins', 'flags override the file');
  assert.deepEqual(endpoint.scaling, { type: 'REQUEST_COUNT', requestCount: 3 });

  const updated = await cli(['endpoints', 'update', endpoint.id, '--max-workers', '5', '--json'], env);
  assert.equal(updated.status, 0, updated.stderr);
  assert.equal(JSON.parse(updated.stdout).workers.max, 5);
  assert.equal(JSON.parse(updated.stdout).name, 'flag-wins', 'the rest stays');

  const typeChange = await cli(['endpoints', 'update', endpoint.id, '--type', 'LOAD_BALANCER'], env);
  assert.equal(typeChange.status, 2, 'the type is chosen at create; update does not offer it');
  assert.match(typeChange.stderr, /unknown option '--type'/);

  const other = JSON.parse((await cli(['endpoints', 'create', '--file', '-', '--json'], env, JSON.stringify(body))).stdout).id as string;
  const deleted = await cli(['endpoints', 'delete', endpoint.id, 'nosuchendpoint', other], env);
  assert.equal(deleted.status, 1, 'one of them was not deleted');
  assert.deepEqual(deleted.stdout.trim().split('\n'), [`deleted endpoint ${endpoint.id}`, `deleted endpoint ${other}`], 'each id is tried');
  assert.match(deleted.stderr, /endpoint nosuchendpoint: Not Found \(404\)/);
  assert.match(deleted.stderr, /1 of 3 endpoints not deleted: nosuchendpoint/);
  for (const id of [endpoint.id, other]) assert.equal((await g.call('GET', `/v2/serverless/${id}`)).statusCode, 404);
});

test('problem+json answers show their title, detail and every field error, exit 1', async () => {
  const invalid = await cli(
    ['endpoints', 'create', '--file', '-'],
    env,
    JSON.stringify({ name: 'x', image: 'i', cpu: [{ id: 'cpu3c', vcpuCount: 2 }], workers: { bogus: 1, max: -1 } }),
  );
  assert.equal(invalid.status, 1);
  assert.match(invalid.stderr, /^gantry: Unprocessable Entity \(422\): .+/m);
  assert.match(invalid.stderr, /^ {2}- workers\.bogus: /m);
  assert.match(invalid.stderr, /^ {2}- workers\.max: /m);

  const conflict = await cli(['endpoints', 'create', '--name', 'x', '--image', 'i', '--cpu', 'cpu3c:3'], env);
  assert.equal(conflict.status, 1);
  assert.match(conflict.stderr, /Bad Request \(400\)/);
  assert.match(conflict.stderr, /- cpu\[0\]\.vcpuCount: must be a power of two/);

  for (const dots of ['.', '..']) {
    const resolved = await cli(['endpoints', 'get', dots], env);
    assert.equal(resolved.status, 2, `get ${dots} is not the list`);
    assert.match(resolved.stderr, new RegExp(`'${dots.replace(/\./g, '\\.')}' is not an id`));
  }

  const missing = await cli(['endpoints', 'get', 'nosuchendpoint'], env);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /Not Found \(404\): endpoint nosuchendpoint not found/);
});

test('a refused key, no key, an unreachable server and bad flags are told apart', async () => {
  const refused = await cli(['endpoints', 'list', '--api-key', 'gantry_aaaaaaaaaaaa_bbbb'], env);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /refused the API key from --api-key \(401: .+\); give a valid key/);

  const noKey = await cli(['endpoints', 'list'], { GANTRY_URL: g.url });
  assert.equal(noKey.status, 2);
  assert.match(noKey.stderr, /no API key: give --api-key, set GANTRY_API_KEY or run gantry login/);

  const closed = await reservePort('127.0.0.1');
  await closed.release();
  const down = await cli(['endpoints', 'list', '--url', `127.0.0.1:${closed.port}`], env);
  assert.equal(down.status, 1);
  assert.match(
    down.stderr,
    new RegExp(`cannot reach Gantry at http://127\\.0\\.0\\.1:${closed.port} \\(--url\\): ECONNREFUSED\\. Is the server running\\?`),
  );

  const twice = await cli(['endpoints', 'create', '--name', 'x', '--image', 'i', '--env', 'A=1', '--env', 'A=2'], env);
  assert.equal(twice.status, 2, 'a variable given twice is a usage error, not the last one winning');
  assert.match(twice.stderr, /A is given twice/);

  const badFlag = await cli(['endpoints', 'create', '--name', 'x', '--cpu', 'lots'], env);
  assert.equal(badFlag.status, 2);
  assert.match(badFlag.stderr, /FLAVOR:VCPUS/);
  assert.equal((await cli(['endpoints', 'frobnicate'], env)).status, 2);
});

test('templates and registries: create, list, delete; a registry password is read from stdin and never shown', async () => {
  const template = await cli(['templates', 'create', '--name', 'cli-template', '--image', 'acme/t:1', '--env', 'A=1', '--quiet'], env);
  assert.equal(template.status, 0, template.stderr);
  const templateId = template.stdout.trim();
  const templates = await cli(['templates', 'list'], env);
  const [header, ...rows] = table(templates.stdout);
  assert.deepEqual(header, ['ID', 'NAME', 'IMAGE', 'SERVERLESS', 'PUBLIC', 'CATEGORY']);
  assert.deepEqual(
    rows.find((row) => row[0] === templateId)?.slice(1, 4),
    ['cli-template', 'acme/t:1', 'yes'],
    'serverless by default, so endpoints can use it',
  );
  const fromTemplate = await cli(
    ['endpoints', 'create', '--name', 'templated', '--template', templateId, '--cpu', 'cpu3c:2', '--json'],
    env,
  );
  assert.equal(JSON.parse(fromTemplate.stdout).image, 'acme/t:1');

  const registry = await cli(['registries', 'create', '--name', 'acme', '--username', 'bot', '--password-stdin'], env, 's3cret-token\n');
  assert.equal(registry.status, 0, registry.stderr);
  assert.doesNotMatch(registry.stdout, /s3cret/);
  const registryId = /^id\s+(\S+)$/m.exec(registry.stdout)?.[1];
  assert.ok(registryId, registry.stdout);
  const registries = await cli(['registries', 'list'], env);
  assert.deepEqual(
    table(registries.stdout).find((row) => row[0] === registryId),
    [registryId, 'acme'],
  );
  const noPassword = await cli(['registries', 'create', '--name', 'other', '--username', 'bot'], env);
  assert.equal(noPassword.status, 2, 'no terminal to ask on');

  assert.equal((await cli(['registries', 'delete', registryId], env)).status, 0);
  const inUse = await cli(['templates', 'delete', templateId], env);
  assert.equal(inUse.status, 1, 'an endpoint was made from it');
  assert.match(inUse.stderr, /in use by endpoint/);
  assert.equal((await cli(['endpoints', 'delete', JSON.parse(fromTemplate.stdout).id], env)).status, 0);
  assert.equal((await cli(['templates', 'delete', templateId], env)).status, 0);
  assert.equal((await cli(['templates', 'get', templateId], env)).status, 1);
});
