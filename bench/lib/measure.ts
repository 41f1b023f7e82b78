// Small measuring tools of the benchmarks: percentiles, a child process's CPU and memory.
import { readFileSync } from 'node:fs';

export function percentile(sortedOrNot: number[], p: number): number {
  const sorted = [...sortedOrNot].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Read and write system calls a process (all its threads) has made, from /proc: socket reads and
 * writes, file writes. On a machine where every message between processes is dear, their count
 * per job is a cost that, unlike CPU time, does not change with how busy the machine is.
 */
export function syscalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
  return { reads: field('syscr'), writes: field('syscw') };
}

/** Resident set size in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

export const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** Node's flags for a process a benchmark starts: a CPU profile of it when BENCH_PROFILE names a directory. */
export function profileFlags(): string[] {
  return process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
}
