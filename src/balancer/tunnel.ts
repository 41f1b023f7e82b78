// Joins a client's connection and a worker's after an upgrade, byte for byte, and decides when
// the tunnel is over. A tunnel holds a slot of its worker until it ends, so it must end even when
// one side misbehaves:
// - a side that finishes sending (half-close) has the other side's sending ended too, and both get
//   HALF_CLOSED_LINGER_MS to finish before the tunnel is torn down (HAProxy's client-fin and
//   server-fin timeouts): a peer that ignores the close cannot hold the tunnel for ever;
// - an error or a close on either side destroys both;
// - no traffic either way for idleMs closes the tunnel.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export const HALF_CLOSED_LINGER_MS = 2000;

export interface TunnelOptions {
  idleMs: number;
}

export function joinTunnel(client: Duplex, worker: Socket, options: TunnelOptions): void {
  let linger: NodeJS.Timeout | undefined;
  const tearDown = () => {
    clearTimeout(linger);
    client.destroy();
    worker.destroy();
  };
  const halfClosed = () => {
    linger ??= setTimeout(tearDown, HALF_CLOSED_LINGER_MS);
  };
  // pipe() ends the destination when its source ends: the half-close reaches the other side.
  client.pipe(worker);
  worker.pipe(client);
  for (const side of [client, worker]) {
    side.on('end', halfClosed);
    side.on('error', tearDown);
    side.on('close', tearDown);
  }
  // The worker's socket sees the tunnel's traffic both ways: what it reads and what it writes.
  worker.setTimeout(options.idleMs, tearDown);
}
