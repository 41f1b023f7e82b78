// A raw client for WebSocket tunnels through the balancer: it sends the upgrade by hand and
// hands back the bare socket once the 101 arrives, so a test decides exactly what the client
// does next (go quiet, half-close, vanish).
import { connect, type Socket } from 'node:net';

export interface RawTunnel {
  socket: Socket;
  /** The status line and headers of the answer. */
  head: string;
}

export function openRawTunnel(baseUrl: string, path: string, key: string): Promise<RawTunnel> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let received = '';
    const onData = (data: Buffer) => {
      received += data.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const head = received.slice(0, end);
      if (!head.startsWith('HTTP/1.1 101')) {
        socket.destroy();
        return reject(new Error(`the upgrade was refused: ${received}`));
      }
      resolve({ socket, head });
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.write(
      [
        `GET ${path} HTTP/1.1`,
        `host: ${hostname}:${port}`,
        `authorization: Bearer ${key}`,
        'connection: Upgrade',
        'upgrade: websocket',
        'sec-websocket-version: 13',
        'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
        '',
        '',
      ].join('\r\n'),
    );
  });
}

/** Resolves once the other side has closed the socket (its end, or a reset), or rejects after `withinMs`. */
export function closedWithin(socket: Socket, withinMs: number): Promise<void> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the tunnel was still open after ${withinMs} ms`)), withinMs);
    const closed = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('end', closed);
    socket.once('close', closed);
    socket.resume();
  });
}
