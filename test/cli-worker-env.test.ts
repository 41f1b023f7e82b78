// gantry worker-env against a real `gantry serve`: the worker gets the server's real address
// (asked of the server, not assumed), in each format, and a wrong data directory is an error
// that leaves nothing behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, serve, stop, type ServeProcess } from './support/processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-worker-env-'));
let server: ServeProcess;
let env: Record<string, string>;
let endpointId: string;

before(async () => {
  server = await serve(['--data-dir', dataDir, '--take-wait-ms', '200']);
  const key = /^\s+(gantry_\S+)$/m.exec(server.output())![1]!;
  env = { GANTRY_URL: server.url, GANTRY_API_KEY: key };
  const created = await cli(
    ['endpoints', 'create', '--name', 'w', '--image', 'x', '--cpu', 'cpu3c:2', '--env', "MODEL=it's big", '-q'],
    env,
  );
  assert.equal(created.status, 0, created.stderr);
  endpointId = created.stdout.trim();
});
after(async () => {
  await stop(server.child);
  rmSync(dataDir, { recursive: true, force: true });
});

test("the shell format exports the server's real address and a credential that opens the worker protocol", async () => {
  const printed = await cli(['worker-env', endpointId, '--data-dir', dataDir, '--worker-id', 'manual-1'], env);
  assert.equal(printed.status, 0, printed.stderr);
  const shell = Object.fromEntries(
    printed.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [, key, value] = /^export (\w+)=(.*)$/.exec(line)!;
        return [key, value];
      }),
  );
  assert.equal(shell.RUNPOD_POD_ID, "'manual-1'");
  assert.equal(shell.MODEL, `'it'\\''s big'`, 'quoted for the shell');
  assert.ok(
    shell.RUNPOD_WEBHOOK_GET_JOB!.startsWith(`'${server.url}/v2/${endpointId}/job-take/`),
    `the server's own port, not 8080: ${shell.RUNPOD_WEBHOOK_GET_JOB}`,
  );

  const json = JSON.parse(
    (await cli(['worker-env', endpointId, '--data-dir', dataDir, '--worker-id', 'manual-1', '--format', 'json'], env)).stdout,
  );
  assert.equal(json.MODEL, "it's big");
  const take = await fetch(`${json.RUNPOD_WEBHOOK_GET_JOB.replace('$ID', 'manual-1')}&job_in_progress=0`, {
    headers: { authorization: json.RUNPOD_AI_API_KEY },
  });
  assert.equal(take.status, 204, 'the credential opens the worker protocol');
});

test('env-file lines are KEY=value without quotes (Docker keeps quotes); docker-args are -e pairs for eval', async () => {
  const envFile = await cli(['worker-env', endpointId, '--data-dir', dataDir, '--format', 'env-file'], env);
  assert.equal(envFile.status, 0, envFile.stderr);
  const lines = envFile.stdout.trim().split('\n');
  assert.ok(lines.includes("MODEL=it's big"), envFile.stdout);
  assert.ok(lines.includes(`RUNPOD_ENDPOINT_ID=${endpointId}`));
  for (const line of lines) assert.match(line, /^\w+=[^'"]/, `unquoted: ${line}`);

  const args = await cli(['worker-env', endpointId, '--data-dir', dataDir, '--format', 'docker-args'], env);
  assert.match(args.stdout, /^(-e '\w+=[^']*(?:'\\''[^']*)*' ?)+\n$/);
  assert.ok(args.stdout.includes(`-e 'RUNPOD_ENDPOINT_ID=${endpointId}'`));
});

test('an explicit --worker-api-url is used as given; a data directory without a database is refused and not created', async () => {
  const given = await cli(
    ['worker-env', endpointId, '--data-dir', dataDir, '--format', 'json', '--worker-api-url', 'https://gantry.example.com/'],
    {},
  );
  assert.equal(given.status, 0, given.stderr);
  assert.ok(JSON.parse(given.stdout).RUNPOD_WEBHOOK_PING.startsWith(`https://gantry.example.com/v2/${endpointId}/ping/`));

  const wrongDir = join(dataDir, 'not-here');
  const missing = await cli(['worker-env', endpointId, '--data-dir', wrongDir], env);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no Gantry database at .*not-here\/gantry\.db/);
  assert.equal(existsSync(wrongDir), false, 'no directory made as a side effect');

  const noKey = await cli(['worker-env', endpointId, '--data-dir', dataDir], { GANTRY_URL: server.url });
  assert.equal(noKey.status, 2);
  assert.match(noKey.stderr, /takes an API key .* or give that address with --worker-api-url/);
  const unknown = await cli(['worker-env', 'nosuchendpoint', '--data-dir', dataDir], env);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /Not Found \(404\)/);
});
