// After a 413 the client is usually still sending. Answering and closing at once makes it see
// a broken pipe (EPIPE/ECONNRESET) instead of the answer, so the rest of the body is read and
// dropped first, up to a bound, and the 413 goes out once the client has finished sending.
// Past the bound the answer goes out at once and the connection closes, as it did before.
import type { FastifyRequest } from 'fastify';

/** Most bytes read and dropped after a refused body: as many again as the limit, at most this. */
const MAX_DISCARD_BYTES = 32 * 1024 * 1024;

/** Resolves once the body has been read to its end, the bound is reached, or the client is gone. */
export function discardRestOfBody(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  const bound = Math.min(request.routeOptions.bodyLimit ?? MAX_DISCARD_BYTES, MAX_DISCARD_BYTES);
  const declared = Number(raw.headers['content-length']);
  // A declared length far past the bound is not worth reading.
  if (Number.isFinite(declared) && declared - raw.socket.bytesRead > bound) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = () => {
      raw.removeListener('data', onData);
      raw.removeListener('end', finish);
      raw.removeListener('close', finish);
      raw.removeListener('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > bound) finish();
    };
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.once('error', finish);
    raw.resume();
  });
}
