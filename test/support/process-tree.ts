// Finding a server's worker processes from /proc, the way an operator would with ps: tests kill a
// worker by pid without going through Gantry, and clean up after themselves by pid.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  commandLine: string;
}

function parentOf(pid: number): number | undefined {
  try {
    // The command name (2nd field) may hold spaces and parentheses: read after its last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** The live direct children of `parentPid`. */
export function childrenOf(parentPid: number): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => parentOf(pid) === parentPid)
    .map((pid) => ({ pid, commandLine: commandLineOf(pid) }));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs `pid` (its process group with `group`) only while it still runs the command `expected`
 * recognises: a pid recorded earlier may have ended and been reused by another test's process.
 */
export function killIfStill(pid: number, expected: (commandLine: string) => boolean, { group = false } = {}): void {
  if (!expected(commandLineOf(pid))) return;
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // Ended between the check and the kill.
  }
}
