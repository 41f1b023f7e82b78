// The process provider with real processes: exact command and env, no shell, no host secrets,
// logs, freeze and thaw, stopping the whole process group, and unexpected exits.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessProvider } from '../src/runtime/process-provider.js';
import type { WorkerExit, WorkerSpec } from '../src/runtime/provider.js';
import { eventually, sleep } from './support/live.js';
import { detectGpus, parseCudaVersion, parseGpuList } from '../src/catalog/gpu-inventory.js';

const provider = new ProcessProvider({ workDir: tmpdir(), logLines: 50 });
const exits: WorkerExit[] = [];
provider.onExit((e) => exits.push(e));
after(() => provider.close(0));

const spec = (workerId: string, cmd: string[], env: Record<string, string> = {}): WorkerSpec => ({
  workerId,
  endpointId: 'ep',
  version: 3,
  image: 'local/test',
  entrypoint: [process.execPath],
  cmd,
  env,
  gpuDeviceIds: ['1', '3'],
  vcpuCount: 4,
  memoryGb: null,
  ports: [],
  diskGb: 5,
});
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('runs entrypoint + cmd without a shell, with the spec env and no host secrets', async () => {
  process.env.GANTRY_TEST_SECRET = 'do-not-leak';
  const handle = await provider.start(
    spec('w1', [new URL('./fixtures/workers/report.mjs', import.meta.url).pathname, '$HOME', 'a;b'], { MODEL: 'x' }),
  );
  const first = await eventually(async () => provider.logs('w1', 50).find((l) => l.source === 'stdout' && l.line.startsWith('{')));
  const report = JSON.parse(first.line);
  assert.deepEqual(report.argv, ['$HOME', 'a;b'], 'no shell: $HOME and ; are literal');
  assert.equal(report.cwd, tmpdir());
  assert.equal(report.env.MODEL, 'x');
  assert.equal(report.env.CUDA_VISIBLE_DEVICES, '1,3');
  assert.equal(report.env.GANTRY_VCPU_COUNT, '4');
  assert.equal(report.env.GANTRY_TEST_SECRET, undefined, 'the host environment is not inherited');
  assert.equal(report.env.PATH, process.env.PATH);
  // stderr is a separate pipe: its line may land after the stdout one.
  await eventually(async () => provider.logs('w1', 50).some((l) => l.source === 'stderr' && l.line === 'to stderr'));

  const followed: string[] = [];
  const unfollow = provider.followLogs('w1', (l) => followed.push(l.line));
  await eventually(async () => followed.length >= 3);
  unfollow();

  await provider.freeze('w1');
  // Output already in the pipe may still arrive just after the freeze.
  await sleep(250);
  const before = provider.logs('w1', 1)[0]!.ts;
  await sleep(150);
  assert.equal(provider.logs('w1', 1)[0]!.ts, before, 'nothing printed while frozen');
  await provider.thaw('w1');
  await eventually(async () => provider.logs('w1', 1)[0]!.ts !== before);

  // The fixture ignores SIGTERM: stop() must kill it after the grace, with its grandchild.
  await provider.stop('w1', 300);
  assert.equal(alive(handle.pid!), false);
  await eventually(async () => !alive(report.grandchild), 2000);
  assert.equal(exits.find((e) => e.workerId === 'w1')?.expected, true);
  delete process.env.GANTRY_TEST_SECRET;
});

test('an unexpected exit is reported with its code, and its last lines are kept', async () => {
  await provider.start(spec('w2', ['-e', 'console.log("last words"); process.exit(3)']));
  const exit = await eventually(async () => exits.find((e) => e.workerId === 'w2'));
  assert.deepEqual([exit.code, exit.expected], [3, false]);
  assert.ok(provider.logs('w2', 10).some((l) => l.line === 'last words'));
});

test('a command that cannot run is a clear error', async () => {
  await assert.rejects(provider.start({ ...spec('w3', []), entrypoint: ['/no/such/binary'] }), /cannot run '\/no\/such\/binary'/);
  await assert.rejects(provider.start({ ...spec('w4', []), entrypoint: [] }), /no command/);
});

test('GPUs are read from nvidia-smi output; without nvidia-smi there are none', () => {
  const banner = '| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |';
  assert.equal(parseCudaVersion(banner), '12.4');
  assert.deepEqual(parseGpuList('0, NVIDIA GeForce RTX 4090, 24564\n1, NVIDIA GeForce RTX 4090, 24564\n', '12.4'), [
    { index: '0', name: 'NVIDIA GeForce RTX 4090', memoryMiB: 24564, cudaVersion: '12.4' },
    { index: '1', name: 'NVIDIA GeForce RTX 4090', memoryMiB: 24564, cudaVersion: '12.4' },
  ]);
  const recorded = (file: string, args: string[]) => (args.length === 0 ? banner : '0, NVIDIA L4, 23034\n');
  assert.deepEqual(
    detectGpus(recorded).map((g) => g.name),
    ['NVIDIA L4'],
  );
  assert.deepEqual(
    detectGpus(() => {
      throw Object.assign(new Error('spawn nvidia-smi ENOENT'), { code: 'ENOENT' });
    }),
    [],
  );
});

test('a process worker finds its network volume directory in RUNPOD_VOLUME_PATH, its working directory unchanged', async () => {
  const volume = mkdtempSync(join(tmpdir(), 'gantry-volume-'));
  after(() => rmSync(volume, { recursive: true, force: true }));
  const script = "require('fs').writeFileSync(require('path').join(process.env.RUNPOD_VOLUME_PATH, 'cwd.txt'), process.cwd())";
  await provider.start({ ...spec('w-volume', ['-e', script]), networkVolume: { volumeId: 'vol1', hostPath: volume } });
  await eventually(async () => exits.some((e) => e.workerId === 'w-volume'));
  assert.equal(readFileSync(join(volume, 'cwd.txt'), 'utf8'), tmpdir(), 'it wrote into the volume from the usual working directory');
});
