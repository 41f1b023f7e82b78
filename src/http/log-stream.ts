// A log as server-sent events: the lines the cursor picks (Last-Event-ID, since or tail), then,
// unless `follow` is false, every new line until the client goes. Worker and pod logs share it.
import type { Server, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LogLine } from '../runtime/provider.js';
import { logCursor, selectLines } from './log-cursor.js';

export interface LogStreamQuery {
  source?: 'container' | 'system';
  tail?: number;
  since?: string;
  follow?: boolean;
}

export interface LogSource {
  lines(): LogLine[];
  follow(listener: (line: LogLine) => void): () => void;
}

/** Log streams open on each HTTP server, ended when it shuts down rather than held to the grace's end. */
const openStreams = new WeakMap<Server, Set<ServerResponse>>();

export function endLogStreams(server: Server): void {
  for (const stream of openStreams.get(server) ?? []) stream.end();
}

export function streamLogs(request: FastifyRequest, reply: FastifyReply, query: LogStreamQuery, source: LogSource): void {
  const lastEventId = request.headers['last-event-id'];
  const cursor = logCursor(typeof lastEventId === 'string' ? lastEventId : undefined, query.since, query.tail);
  const wanted = (line: LogLine) => query.source === undefined || query.source === (line.source === 'system' ? 'system' : 'container');
  const event = (line: LogLine) =>
    `id: ${line.ts}\nevent: log\ndata: ${JSON.stringify({ source: line.source === 'system' ? 'system' : 'container', line: line.line, ts: line.ts })}\n\n`;
  reply.hijack();
  const raw = reply.raw;
  // Headers set earlier (rate limits) go out with the stream.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
  // X-Accel-Buffering: a proxy in front (nginx) must pass each line on as it comes.
  raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  for (const line of selectLines(source.lines(), cursor)) if (wanted(line)) raw.write(event(line));
  if (query.follow === false) {
    raw.end();
    return;
  }
  const stop = source.follow((line) => {
    if (wanted(line)) raw.write(event(line));
  });
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
  const server = request.server.server;
  const open = openStreams.get(server) ?? new Set<ServerResponse>();
  openStreams.set(server, open.add(raw));
  raw.on('close', () => {
    clearInterval(heartbeat);
    stop();
    open.delete(raw);
  });
}
