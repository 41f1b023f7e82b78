// The GPUs of this machine, as nvidia-smi reports them. No nvidia-smi (or no GPU) means none;
// an operator can declare GPUs instead (see the capacity file), e.g. to develop on a laptop.
import { execFileSync } from 'node:child_process';

export interface DetectedGpu {
  /** nvidia-smi's index, used for CUDA_VISIBLE_DEVICES. */
  index: string;
  /** The marketing name, which is also the catalog's GPU type id ("NVIDIA GeForce RTX 4090"). */
  name: string;
  memoryMiB: number;
  cudaVersion: string;
}

export type RunCommand = (file: string, args: string[]) => string;

// Read once at start; a missing nvidia-smi throws ENOENT at once.
const run: RunCommand = (file, args) =>
  execFileSync(file, args, { timeout: 10_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** Parses `nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits`. */
export function parseGpuList(csv: string, cudaVersion: string): DetectedGpu[] {
  return csv
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [index = '', name = '', memory = '0'] = line.split(',').map((part) => part.trim());
      return { index, name, memoryMiB: Number(memory), cudaVersion };
    });
}

/** The driver's CUDA version from nvidia-smi's banner ("CUDA Version: 12.4"). */
export function parseCudaVersion(banner: string): string | undefined {
  return /CUDA Version:\s*(\d+\.\d+)/.exec(banner)?.[1];
}

export function detectGpus(exec: RunCommand = run): DetectedGpu[] {
  try {
    const cuda = parseCudaVersion(exec('nvidia-smi', []));
    if (!cuda) return [];
    return parseGpuList(exec('nvidia-smi', ['--query-gpu=index,name,memory.total', '--format=csv,noheader,nounits']), cuda);
  } catch {
    return [];
  }
}
