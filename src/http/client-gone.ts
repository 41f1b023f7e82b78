import type { FastifyReply } from 'fastify';

/** Aborts when the client goes away before its answer is written, so long-polls stop holding it. */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
