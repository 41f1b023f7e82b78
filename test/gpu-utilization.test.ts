// nvidia-smi's utilisation figures as pods report them; on a machine without nvidia-smi there are none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { gpuUtilization, parseUtilization } from '../src/runtime/gpu-utilization.js';

test('the CSV nvidia-smi prints becomes figures per device index', () => {
  assert.deepEqual(parseUtilization('0, 87, 40\n1, 0, 0\n\n'), [
    { index: '0', util: 87, memoryUtil: 40 },
    { index: '1', util: 0, memoryUtil: 0 },
  ]);
  assert.deepEqual(parseUtilization('0, [N/A], [N/A]\n'), [], 'a device without figures gives none');
});

test('without nvidia-smi (or a device it does not list) there are no figures', async () => {
  const present = spawnSync('nvidia-smi', ['-L']).status === 0;
  if (present) assert.equal(await gpuUtilization(['no-such-device']), undefined);
  else assert.equal(await gpuUtilization(['0']), undefined);
});
