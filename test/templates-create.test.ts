// Creating templates (POST /v2/templates): defaults, every field kept, schema and container rule
// failures, args and cmd kept in step, names unique in an account, read-only keys refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { problem } from './support/harness.js';
import { create, h, otherKey, ownCred, readKey, uniqueName, useTemplatesHarness } from './support/templates-harness.js';

const VALIDATION = 'the request body failed validation';
const RULES = 'request conflicts with the template rules';

useTemplatesHarness();

describe('POST /v2/templates', () => {
  test('fills every default', async () => {
    const res = await h.call('POST', '/v2/templates', { name: 'defaults', image: 'acme/app:1' });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^[a-z0-9]{10}$/);
    assert.deepEqual(body, {
      id: body.id,
      name: 'defaults',
      image: 'acme/app:1',
      args: '',
      entrypoint: [],
      cmd: [],
      disk: 10,
      mounts: {},
      ports: [],
      env: {},
      registry: null,
      serverless: false,
      public: false,
      category: 'NVIDIA',
      startSsh: true,
      startJupyter: true,
      allowedCudaVersions: [],
    });
  });

  test('keeps every field sent', async () => {
    const body = await create({
      name: 'full',
      disk: 40,
      ports: ['8000/http', '22/tcp'],
      env: { A: '1' },
      registry: ownCred,
      allowedCudaVersions: ['12.8', '12.4'],
      category: 'CPU',
      mounts: { persistent: { size: 20, path: '/workspace' } },
      public: true,
      serverless: true,
      startJupyter: false,
      startSsh: false,
    });
    assert.deepEqual(
      { ...body, id: undefined },
      {
        id: undefined,
        name: 'full',
        image: 'acme/app:1',
        args: '',
        entrypoint: [],
        cmd: [],
        disk: 40,
        mounts: { persistent: { size: 20, path: '/workspace' } },
        ports: ['8000/http', '22/tcp'],
        env: { A: '1' },
        registry: ownCred,
        serverless: true,
        public: true,
        category: 'CPU',
        startSsh: false,
        startJupyter: false,
        allowedCudaVersions: ['12.8', '12.4'],
      },
    );
  });

  const schemaCases: [string, Record<string, unknown>, string[]][] = [
    ['unknown top-level property', { name: 's1', image: 'i', colour: 'red' }, ['colour: unknown property']],
    ['unknown property inside mounts', { name: 's2', image: 'i', mounts: { network: { id: 'v' } } }, ['mounts.network: unknown property']],
    [
      'unknown property inside mounts.persistent',
      { name: 's3', image: 'i', mounts: { persistent: { size: 20, path: '/data', mode: 'rw' } } },
      ['mounts.persistent.mode: unknown property'],
    ],
    [
      'mount path not absolute',
      { name: 's4', image: 'i', mounts: { persistent: { size: 20, path: 'data' } } },
      ['mounts.persistent.path: must be an absolute path'],
    ],
    [
      'a volume under the 10 GB pods need',
      { name: 's4b', image: 'i', mounts: { persistent: { size: 9, path: '/data' } } },
      ['mounts.persistent.size: must be >= 10'],
    ],
    ['missing name', { image: 'i' }, ['name: is required']],
    ['empty name', { name: '', image: 'i' }, ['name: must NOT have fewer than 1 characters']],
    ['missing image', { name: 's5' }, ['image: is required']],
    [
      'bad cuda version',
      { name: 's6', image: 'i', allowedCudaVersions: ['12'] },
      ['allowedCudaVersions[0]: must be a CUDA version major.minor, such as 12.4'],
    ],
    [
      'duplicate cuda version',
      { name: 's7', image: 'i', allowedCudaVersions: ['12.4', '12.4'] },
      ['allowedCudaVersions[1]: duplicates allowedCudaVersions[0]'],
    ],
    ['disk 0', { name: 's8', image: 'i', disk: 0 }, ['disk: must be >= 1']],
    ['bad category', { name: 's9', image: 'i', category: 'TPU' }, ['category: must be one of CPU, NVIDIA, AMD']],
  ];
  for (const [label, body, errors] of schemaCases) {
    test(`schema failure answers 422: ${label}`, async () => {
      const res = await h.call('POST', '/v2/templates', body);
      assert.equal(res.statusCode, 422);
      assert.deepEqual(problem(res), { title: 'Unprocessable Entity', status: 422, detail: VALIDATION, errors });
    });
  }

  const ruleCases: [string, Record<string, unknown>, string[]][] = [
    [
      'bad port',
      { ports: ['80/sctp'] },
      ["ports[0]: '80/sctp' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp"],
    ],
    ['duplicate port', { ports: ['8000/http', '8000/http'] }, ['ports[1]: duplicates ports[0]']],
    [
      'bad env name',
      { env: { '1BAD': 'x' } },
      ['env.1BAD: must be a valid environment variable name (letters, digits and _, not starting with a digit)'],
    ],
    [
      'args and cmd disagree',
      { args: 'python a.py', cmd: ['python', 'b.py'] },
      ['cmd: does not match args, which gives cmd ["python","a.py"]'],
    ],
    ['malformed JSON args', { args: '{"cmd": [' }, ['args: looks like a JSON object but is not valid JSON']],
    ['an image of spaces', { image: '   ' }, ['image: must not be empty']],
    [
      'an image no engine could pull',
      { image: 'Has Spaces!!' },
      [
        "image: 'Has Spaces!!' is not an image reference: [registry[:port]/]name[:tag][@digest], the name in lower case, such as ghcr.io/acme/worker:1.2",
      ],
    ],
    ['a name of spaces', { name: '   ' }, ['name: must not be blank']],
    [
      'several at once',
      { ports: ['0/tcp'], env: { 'A-B': '1' } },
      [
        "ports[0]: '0/tcp' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp",
        'env.A-B: must be a valid environment variable name (letters, digits and _, not starting with a digit)',
      ],
    ],
  ];
  for (const [label, extra, errors] of ruleCases) {
    test(`container rule failure answers 400: ${label}`, async () => {
      const res = await h.call('POST', '/v2/templates', { name: uniqueName('rule'), image: 'i', ...extra });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(problem(res), { title: 'Bad Request', status: 400, detail: RULES, errors });
    });
  }

  test('args as a shell string is split into CMD and kept as sent', async () => {
    const args = `python -c "print('hello world')" --flag`;
    const body = await create({ args });
    assert.equal(body.args, args);
    assert.deepEqual(body.entrypoint, []);
    assert.deepEqual(body.cmd, ['python', '-c', "print('hello world')", '--flag']);
  });

  test('args as a JSON object string sets entrypoint and cmd', async () => {
    const args = '{"entrypoint": ["/bin/sh", "-c"], "cmd": ["echo hi"]}';
    const body = await create({ args, entrypoint: ['/bin/sh', '-c'] });
    assert.equal(body.args, args);
    assert.deepEqual(body.entrypoint, ['/bin/sh', '-c']);
    assert.deepEqual(body.cmd, ['echo hi']);
  });

  test('cmd alone is encoded into args', async () => {
    const body = await create({ cmd: ['python', 'handler.py', '--name', 'a b'] });
    assert.equal(body.args, "python handler.py --name 'a b'");
    assert.deepEqual(body.entrypoint, []);
    const withEntrypoint = await create({ entrypoint: ['/run.sh'], cmd: ['x'] });
    assert.equal(withEntrypoint.args, '{"entrypoint":["/run.sh"],"cmd":["x"]}');
  });

  test('a name already used in the account answers 409; another account may use it', async () => {
    await create({ name: 'taken' });
    const res = await h.call('POST', '/v2/templates', { name: 'taken', image: 'i' });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(problem(res).errors, ["name: 'taken' is already used by another template of this account"]);
    await create({ name: 'taken' }, otherKey);
  });

  test('a read-only key can read but not write', async () => {
    const res = await h.call('POST', '/v2/templates', { name: 'ro', image: 'i' }, readKey);
    assert.equal(res.statusCode, 403);
    assert.equal(problem(res).detail, 'this API key is read-only');
    const own = await create({});
    assert.equal((await h.call('GET', `/v2/templates/${own.id}`, undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('GET', '/v2/templates', undefined, readKey)).statusCode, 200);
    assert.equal((await h.call('PATCH', `/v2/templates/${own.id}`, { disk: 5 }, readKey)).statusCode, 403);
    assert.equal((await h.call('DELETE', `/v2/templates/${own.id}`, undefined, readKey)).statusCode, 403);
  });
});
