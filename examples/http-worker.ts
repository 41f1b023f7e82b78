// An example load-balancing worker: a plain node HTTP server on PORT, answering its health check
// on PORT_HEALTH at HEALTH_CHECK_PATH, all three of which Gantry sets. Run by hand without them
// it listens on 80, checks health on PORT's port, at /ping.
//   GET  /ping                 200 when ready, 204 while starting (STARTUP_MS), 503 once told to be unhealthy
//   ANY  /echo                 the method, path, query, headers and body it received, as JSON
//   POST /upload               streams the body, answers {bytes, sha256, firstByteAt} without holding it
//   GET  /sse?n=5&everyMs=100  n server-sent events, one every everyMs
//   GET  /sleep?ms=1000        answers after ms
//   GET  /whoami               {worker (RUNPOD_POD_ID), port, healthPort, healthPath}
//   POST /unhealthy            the health check answers 503 from now on
//   GET  /ws                   WebSocket echo of text and binary messages
// Run it with `PORT=8000 node --import tsx examples/http-worker.ts`.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { acceptWebSocket } from './websocket-echo.js';

const port = Number(process.env.PORT ?? 80);
const healthPort = Number(process.env.PORT_HEALTH ?? port);
const healthPath = process.env.HEALTH_CHECK_PATH ?? '/ping';
const host = process.env.HOST ?? '127.0.0.1';
const worker = process.env.RUNPOD_POD_ID ?? 'local';
const readyAt = Date.now() + Number(process.env.STARTUP_MS ?? 0);
let unhealthy = false;

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function health(res: ServerResponse): void {
  if (unhealthy) return json(res, 503, { status: 'unhealthy' });
  if (Date.now() < readyAt) return void res.writeHead(204).end();
  json(res, 200, { status: 'healthy' });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const hash = createHash('sha256');
  let bytes = 0;
  let firstByteAt: number | undefined;
  for await (const chunk of req) {
    firstByteAt ??= Date.now();
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  json(res, 200, { bytes, sha256: hash.digest('hex'), firstByteAt });
}

function sse(res: ServerResponse, query: URLSearchParams): void {
  const count = Number(query.get('n') ?? 5);
  const everyMs = Number(query.get('everyMs') ?? 100);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  const timer = setInterval(() => {
    res.write(`data: ${JSON.stringify({ i: sent, at: Date.now() })}\n\n`);
    if (++sent === count) {
      clearInterval(timer);
      res.end();
    }
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://worker');
  if (url.pathname === healthPath && req.method === 'GET') return health(res);
  switch (url.pathname) {
    case '/echo': {
      const body = await readBody(req);
      return json(res, 200, {
        worker,
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: req.headers,
        body: body.toString(),
      });
    }
    case '/upload':
      return upload(req, res);
    case '/sse':
      return sse(res, url.searchParams);
    case '/sleep': {
      const ms = Number(url.searchParams.get('ms') ?? 1000);
      setTimeout(() => json(res, 200, { worker, sleptMs: ms }), ms);
      return;
    }
    case '/whoami':
      return json(res, 200, { worker, port, healthPort, healthPath });
    case '/unhealthy':
      unhealthy = true;
      return json(res, 200, { worker, unhealthy });
  }
  json(res, 404, { error: `no route ${req.method} ${url.pathname}` });
}

const server = createServer((req, res) => {
  route(req, res).catch((err: Error) => json(res, 500, { error: err.message }));
});
server.on('upgrade', (req, socket) => {
  if (new URL(req.url ?? '/', 'http://worker').pathname === '/ws') acceptWebSocket(req, socket);
  else socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
});
server.listen(port, host, () => process.stdout.write(`http worker ${worker} listening on ${host}:${port}\n`));
if (healthPort !== port) {
  createServer((req, res) =>
    req.method === 'GET' && (req.url ?? '').split('?')[0] === healthPath ? health(res) : json(res, 404, {}),
  ).listen(healthPort, host);
}
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
