// Picks a free port and holds it until released, so a server whose configuration names its own
// port can be set up for the real one before it listens.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface PortReservation {
  readonly port: number;
  /** Frees the port for the server about to listen on it; later calls do nothing. */
  release(): Promise<void>;
}

export async function reservePort(host: string): Promise<PortReservation> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen({ port: 0, host }, resolve);
  });
  const { port } = holder.address() as AddressInfo;
  let released: Promise<void> | undefined;
  return {
    port,
    release() {
      released ??= new Promise((resolve) => holder.close(() => resolve()));
      return released;
    },
  };
}
