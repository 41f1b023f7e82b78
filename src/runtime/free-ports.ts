// Free TCP ports on the loopback interface, for local workers that each need their own.
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Ports for a worker's PORT and PORT_HEALTH. Two workers on one host cannot share a port, so
 * each gets fresh ones; an endpoint serving health on its main port keeps doing so.
 */
export async function localHttpPorts(wanted: { port: number; healthPort: number }): Promise<{ port: number; healthPort: number }> {
  const port = await freePort();
  const healthPort = wanted.healthPort === wanted.port ? port : await freePort();
  return { port, healthPort };
}
