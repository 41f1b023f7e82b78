// Passes a connection upgrade (WebSocket) to a worker: the handshake goes through as HTTP, then
// the two sockets are joined byte for byte until either side closes.
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../domain/errors.js';
import { downstreamHeaders, upstreamHeaders } from './forward.js';
import { writeSocketProblem } from '../http/raw-problem.js';
import type { HttpAddress } from '../domain/workers.js';
import { connectionValuesOf, hopByHopNames, withoutHeaders } from './hop-by-hop.js';

export interface UpgradeRequest {
  address: HttpAddress;
  path: string;
  /** Bounds the handshake only; an open connection lives as long as its two ends want. */
  timeoutMs: number;
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
    client.once('close', () => resolve());
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
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      const status = err.code === 'ETIMEDOUT' ? 504 : 502;
      writeSocketProblem(client, new ApiError(status, `the worker did not accept the upgrade: ${err.code ?? err.message}`), target.responseHeaders);
    });
    upstream.on('upgrade', (answer, socket, upstreamHead) => {
      socket.setTimeout(0);
      socket.setNoDelay(true);
      // The handshake keeps Connection and Upgrade, but not the other headers Connection names.
      const passed = withoutHeaders(answer.rawHeaders, hopByHopNames(connectionValuesOf(answer.rawHeaders), true))
        .map((item, i, list) => (i % 2 === 1 && list[i - 1]!.toLowerCase() === 'connection' ? 'Upgrade' : item));
      client.write(head(answer.statusCode ?? 101, answer.statusMessage ?? 'Switching Protocols', [...passed, ...flat(target.responseHeaders)]));
      if (upstreamHead.length > 0) client.write(upstreamHead);
      if (clientHead.length > 0) socket.write(clientHead);
      socket.pipe(client).pipe(socket);
      socket.on('error', () => client.destroy());
      socket.on('close', () => client.destroy());
      client.on('close', () => socket.destroy());
    });
    // The worker refused the upgrade: its answer goes back as an ordinary response.
    upstream.on('response', (answer) => {
      client.write(head(answer.statusCode ?? 502, answer.statusMessage ?? '', [...downstreamHeaders(answer.rawHeaders, target.responseHeaders), 'connection', 'close']));
      answer.pipe(client);
    });
    upstream.end();
  });
}

function flat(headers: Record<string, string>): string[] {
  return Object.entries(headers).flat();
}
