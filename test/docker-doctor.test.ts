// `gantry doctor` with the docker provider: what the engine is, or that none answers.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli } from './support/processes.js';
import { dockerSkipReason } from './support/docker.js';

const skip = await dockerSkipReason();
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-docker-doctor-'));
runCli(['migrate', '--data-dir', dataDir]);
after(() => rmSync(dataDir, { recursive: true, force: true }));

const doctor = (env: Record<string, string> = {}, flags: string[] = []) =>
  spawnSync(process.execPath, [...CLI, 'doctor', '--data-dir', dataDir, '--worker-provider', 'docker', ...flags], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });

test('doctor reports the engine version, its storage driver and whether GPUs can be requested', { skip }, () => {
  const res = doctor();
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.match(res.stdout, /ok {4}docker +Docker Engine \S+ \(API [\d.]+\)/);
  assert.match(res.stdout, /storage +storage driver \w+/);
  assert.match(res.stdout, /(ok|warn) +gpus +/);
  // This machine's engine (overlay2 on ext4) cannot cap a writable layer; other drivers say they do.
  assert.match(
    res.stdout,
    /(ok +disk +endpoints' disk limits each container's writable layer|warn +disk +endpoints' disk is recorded, not enforced: storage driver \w+)/,
  );
});

test('doctor judges the address workers call as the server was started: --port, --replica-url', { skip }, () => {
  assert.match(doctor({}, ['--port', '18999']).stdout, /network +host: workers call http:\/\/127\.0\.0\.1:18999/);
  assert.match(doctor({}, ['--replica-url', 'http://10.1.2.3:9000']).stdout, /network +host: workers call http:\/\/10\.1\.2\.3:9000/);
});

test('doctor fails, saying how to fix it, when no engine answers', () => {
  const res = doctor({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
  assert.equal(res.status, 1);
  assert.match(res.stdout, /FAIL +docker +no engine answers at unix:\/\/\/nonexistent\/docker\.sock: .*start dockerd or set DOCKER_HOST/);
});
