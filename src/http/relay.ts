// Relays a streaming GET from another replica to this request's client, as it arrives.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ApiError } from '../domain/errors.js';

export async function relay(url: string, authorization: string | undefined, reply: FastifyReply): Promise<FastifyReply> {
  const abort = new AbortController();
  let upstream: Response;
  try {
    upstream = await fetch(url, { headers: authorization ? { authorization } : {}, signal: abort.signal });
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
