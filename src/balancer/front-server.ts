// The HTTP server Gantry listens with: requests and upgrades for load-balancing endpoints go to
// the balancer before Fastify sees them (so their bodies are never parsed or buffered),
// everything else to Fastify's handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LoadBalancer } from './load-balancer.js';

export interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
}

export function createFrontServer(
  balancer: LoadBalancer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  timeouts: ServerTimeouts,
): Server {
  const server = createServer((req, res) => {
    const target = balancer.match(req);
    if (target) void balancer.handle(req, res, target);
    else handler(req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    const target = balancer.match(req);
    if (target) void balancer.handleUpgrade(req, socket, head, target);
    else socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  // The settings Fastify gives the servers it makes itself.
  if (timeouts.keepAliveTimeout !== undefined) server.keepAliveTimeout = timeouts.keepAliveTimeout;
  if (timeouts.requestTimeout !== undefined) server.requestTimeout = timeouts.requestTimeout;
  if (timeouts.connectionTimeout !== undefined) server.setTimeout(timeouts.connectionTimeout);
  return server;
}
