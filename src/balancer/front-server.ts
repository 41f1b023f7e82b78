// The HTTP server Gantry listens with: requests and upgrades for load-balancing endpoints go to
// the balancer before Fastify sees them (so their bodies are never parsed or buffered),
// everything else to Fastify's handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LoadBalancer } from './load-balancer.js';
import type { PodProxy } from './pod-proxy.js';
import { ApiError } from '../domain/errors.js';
import { sendRawProblem, writeSocketProblem } from '../http/raw-problem.js';

export interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
}

export function createFrontServer(
  balancer: LoadBalancer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  timeouts: ServerTimeouts,
  pods?: PodProxy,
): Server {
  // Node refuses an HTTP/1.1 request without Host with a bare 400 of its own; this answers it as a problem.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      sendRawProblem(res, new ApiError(400, 'an HTTP/1.1 request needs a Host header'), { connection: 'close' });
      return;
    }
    const target = balancer.match(req);
    const leader = target ? undefined : pods?.relayTarget(req);
    const pod = target || leader ? undefined : pods?.match(req);
    if (target) void balancer.handle(req, res, target);
    else if (leader) void pods!.relay(req, res, leader);
    else if (pod) void pods!.handle(req, res, pod);
    else handler(req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    const target = balancer.match(req);
    const leader = target ? undefined : pods?.relayTarget(req);
    const pod = target || leader ? undefined : pods?.match(req);
    if (target) void balancer.handleUpgrade(req, socket, head, target);
    else if (leader) void pods!.relayUpgrade(req, socket, head, leader);
    else if (pod) void pods!.handleUpgrade(req, socket, head, pod);
    else writeSocketProblem(socket, new ApiError(404, `no upgrade is served on ${req.url?.split('?')[0] ?? '/'}`));
  });
  // Gantry is no forward proxy: without a listener Node just drops a CONNECT's connection.
  server.on('connect', (req: IncomingMessage, socket) => {
    writeSocketProblem(socket, new ApiError(405, `CONNECT is not served; Gantry is not a forward proxy (${req.url ?? ''})`), {
      allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    });
  });
  // Node answers an Expect other than 100-continue with a bare 417 unless told otherwise.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    sendRawProblem(res, new ApiError(417, `Expect: ${String(req.headers.expect)} is not supported; only 100-continue is`), {
      connection: 'close',
    });
  });
  // The settings Fastify gives the servers it makes itself.
  if (timeouts.keepAliveTimeout !== undefined) server.keepAliveTimeout = timeouts.keepAliveTimeout;
  if (timeouts.requestTimeout !== undefined) server.requestTimeout = timeouts.requestTimeout;
  if (timeouts.connectionTimeout !== undefined) server.setTimeout(timeouts.connectionTimeout);
  return server;
}
