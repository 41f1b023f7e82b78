// The PostgreSQL backends serving given processes, for CPU figures on a shared database server.
import { execFileSync } from 'node:child_process';

function sockets(args: string[]): string[] {
  try {
    return execFileSync('ss', ['-pH', ...args], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

const pidOf = (line: string) => Number(/pid=(\d+)/.exec(line)?.[1]);
const columns = (line: string) => line.trim().split(/\s+/);

/**
 * The PostgreSQL backends serving the given processes' connections: the machine is shared, so
 * only the backends of this deployment count. Found with `ss`: over TCP through the sockets'
 * ports, over a Unix socket (a URL with `host=/run/postgresql`) through the sockets' inodes.
 */
export function backendsOf(url: string, clientPids: number[]): number[] {
  return serverSideOf(url, new Set(clientPids))
    .map(pidOf)
    .filter((pid) => pid > 0);
}

/** The server's ends of the clients' connections, as `ss` lists them. */
function serverSideOf(url: string, clients: Set<number>): string[] {
  const ours = (line: string) => clients.has(pidOf(line));
  if (!URL.canParse(url) || new URL(url).searchParams.get('host')?.startsWith('/')) {
    // Each line: u_str ESTAB recv send <path or *> <inode> * <peer inode> users:(...)
    const all = sockets(['-x']);
    const clientInodes = new Set(all.filter(ours).map((line) => columns(line)[5]));
    return all.filter((line) => line.includes('.s.PGSQL.') && clientInodes.has(columns(line)[7]));
  }
  const port = new URL(url).port || '5432';
  const portOf = (address: string) => address.split(':').pop();
  const ports = new Set(
    sockets(['-tn', `dport = :${port}`])
      .filter(ours)
      .map((line) => portOf(columns(line)[3]!)),
  );
  return sockets(['-tn', `sport = :${port}`]).filter((line) => ports.has(portOf(columns(line)[4]!)));
}
