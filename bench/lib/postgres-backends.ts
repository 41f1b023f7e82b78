// The PostgreSQL backends serving given processes, for CPU figures on a shared database server.
import { execFileSync } from 'node:child_process';

/**
 * The PostgreSQL backends serving the given processes' connections: the machine is shared, so
 * only the backends of this deployment count (found through the sockets' ports with `ss`).
 */
export function backendsOf(url: string, clientPids: number[]): number[] {
  const port = new URL(url).port || '5432';
  const sockets = (filter: string) => {
    try {
      return execFileSync('ss', ['-tnpH', filter], { encoding: 'utf8' }).trim().split('\n');
    } catch {
      return [];
    }
  };
  const pidOf = (line: string) => Number(/pid=(\d+)/.exec(line)?.[1]);
  const clients = new Set(clientPids);
  const ports = new Set(
    sockets(`dport = :${port}`)
      .filter((line) => clients.has(pidOf(line)))
      .map((line) => line.split(/\s+/)[3]!.split(':').pop()),
  );
  return sockets(`sport = :${port}`)
    .filter((line) => ports.has(line.split(/\s+/)[4]!.split(':').pop()))
    .map(pidOf)
    .filter((pid) => pid > 0);
}
