// GPU utilisation of this machine's devices, as nvidia-smi reports it; none without nvidia-smi
// (GPUs declared in a capacity file for development have no figures).
import { execFile } from 'node:child_process';

export interface GpuUtilization {
  /** nvidia-smi's index, the device id placement hands out. */
  index: string;
  /** Percent of time a kernel ran. */
  util: number;
  /** Percent of time memory was read or written. */
  memoryUtil: number;
}

/** Parses `nvidia-smi --query-gpu=index,utilization.gpu,utilization.memory --format=csv,noheader,nounits`. */
export function parseUtilization(csv: string): GpuUtilization[] {
  return csv
    .split('\n')
    .map((line) => line.split(',').map((part) => part.trim()))
    .filter((parts) => parts.length === 3 && parts[0] !== '')
    .map(([index, util, memory]) => ({ index: index!, util: Number(util), memoryUtil: Number(memory) }))
    .filter((gpu) => Number.isFinite(gpu.util) && Number.isFinite(gpu.memoryUtil));
}

/** The devices' figures, in the order asked; undefined when nvidia-smi is missing or fails. */
export function gpuUtilization(deviceIds: readonly string[]): Promise<GpuUtilization[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      'nvidia-smi',
      ['--query-gpu=index,utilization.gpu,utilization.memory', '--format=csv,noheader,nounits'],
      { timeout: 5_000, encoding: 'utf8' },
      (error, stdout) => {
        if (error) return resolve(undefined);
        const found = parseUtilization(stdout);
        const wanted = deviceIds.map((id) => found.find((gpu) => gpu.index === id));
        resolve(wanted.every((gpu) => gpu !== undefined) ? (wanted as GpuUtilization[]) : undefined);
      },
    );
  });
}
