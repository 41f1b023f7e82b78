// Relays a streaming GET from another replica to this request's client, as it arrives.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ApiError } from '../domain/errors.js';

/** Request headers the replica that holds the stream needs: who asks, and where to resume. */
const RELAYED_HEADERS = ['authorization', 'last-event-id'];

export async function relay(url: string, requestHeaders: IncomingHttpHeaders, reply: FastifyReply): Promise<FastifyReply> {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  for (const name of RELAYED_HEADERS) {
    const value = requestHeaders[name];
    if (typeof value === 'string') headers[name] = value;
  }
  let upstream: Response;
  try {
    upstream = await fetch(url, { headers, signal: abort.signal });
  } catch (error) {
    throw new ApiError(502, `the replica that runs this worker did not answer: ${(error as Error).message}`);
  }
  reply.raw.on('close', () => abort.abort());
  reply.status(upstream.status);
  const type = upstream.headers.get('content-type');
  if (type) reply.header('content-type', type);
  reply.header('cache-control', 'no-cache');
  return reply.send(upstream.body ? Readable.fromWeb(upstream.body as WebReadableStream) : '');
}
