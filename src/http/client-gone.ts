import type { FastifyReply } from 'fastify';
import { Cancellation } from '../domain/cancellation.js';

/** Aborts when the client goes away before its answer is written, so long-polls stop holding it. */
export function clientGone(reply: FastifyReply): Cancellation {
  const gone = new Cancellation();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone;
}
