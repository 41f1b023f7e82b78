// Passes a connection upgrade (WebSocket) to a worker: the handshake goes through as HTTP, then
// the two sockets are joined as a tunnel (tunnel.ts says when it ends).
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../domain/errors.js';
import { downstreamHeaders, upstreamHeaders } from './forward.js';
import { writeSocketProblem } from '../http/raw-problem.js';
import type { HttpAddress } from '../domain/workers.js';
import { connectionValuesOf, hopByHopNames, withoutHeaders } from './hop-by-hop.js';
import { joinTunnel } from './tunnel.js';

export interface UpgradeRequest {
  address: HttpAddress;
  path: string;
  /** Bounds the handshake only; an open tunnel lives while it has traffic (idleMs). */
  timeoutMs: number;
  /** An open tunnel with no traffic either way this long is closed. */
  idleMs: number;
  responseHeaders: Record<string, string>;
  /** Relaying to the replica that runs the workers: it authenticates the caller itself. */
  keepAuthorization?: boolean;
}

function head(status: number, message: string, headers: string[]): string {
  const lines = [`HTTP/1.1 ${status} ${message}`];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Resolves once the client's connection is closed. */
export function forwardUpgrade(req: IncomingMessage, client: Duplex, clientHead: Buffer, target: UpgradeRequest): Promise<void> {
  return new Promise((resolve) => {
    client.on('error', () => client.destroy());
    const upstream = request({
      host: target.address.host,
      port: target.address.port,
      method: req.method,
      path: target.path,
      headers: upstreamHeaders(req, true, target.keepAuthorization),
      agent: false,
      timeout: target.timeoutMs,
    });
    // A client gone during the handshake takes the worker's half-made connection with it.
    client.once('close', () => {
      upstream.destroy();
      resolve();
    });
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      const status = err.code === 'ETIMEDOUT' ? 504 : 502;
      writeSocketProblem(
        client,
        new ApiError(status, `the worker did not accept the upgrade: ${err.code ?? err.message}`),
        target.responseHeaders,
      );
    });
    upstream.on('upgrade', (answer, socket, upstreamHead) => {
      if (client.destroyed) return void socket.destroy();
      socket.setNoDelay(true);
      // The handshake keeps Connection and Upgrade, but not the other headers Connection names.
      const passed = withoutHeaders(answer.rawHeaders, hopByHopNames(connectionValuesOf(answer.rawHeaders), true)).map((item, i, list) =>
        i % 2 === 1 && list[i - 1]!.toLowerCase() === 'connection' ? 'Upgrade' : item,
      );
      client.write(
        head(answer.statusCode ?? 101, answer.statusMessage ?? 'Switching Protocols', [...passed, ...flat(target.responseHeaders)]),
      );
      if (upstreamHead.length > 0) client.write(upstreamHead);
      if (clientHead.length > 0) socket.write(clientHead);
      joinTunnel(client, socket, { idleMs: target.idleMs });
    });
    // The worker refused the upgrade: its answer goes back as an ordinary response.
    upstream.on('response', (answer) => {
      client.write(
        head(answer.statusCode ?? 502, answer.statusMessage ?? '', [
          ...downstreamHeaders(answer.rawHeaders, target.responseHeaders),
          'connection',
          'close',
        ]),
      );
      answer.pipe(client);
    });
    upstream.end();
  });
}

function flat(headers: Record<string, string>): string[] {
  return Object.entries(headers).flat();
}
