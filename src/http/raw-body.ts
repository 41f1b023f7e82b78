// Worker posts say `application/x-www-form-urlencoded` but carry raw JSON, so worker routes read
// every body as text whatever its content type. Past the storage limit the bytes are counted and
// dropped, never buffered, so an oversized result can still fail its job with a clear error.
import type { FastifyInstance } from 'fastify';

export interface RawBody {
  text: string;
  bytes: number;
  /** True when the body was larger than the limit; `text` is then empty. */
  tooLarge: boolean;
}

export function acceptRawBodies(app: FastifyInstance, limitBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    payload.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= limitBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    payload.on('error', (err) => done(err, undefined));
    payload.on('end', () => {
      const tooLarge = bytes > limitBytes;
      const body: RawBody = { text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), bytes, tooLarge };
      done(null, body);
    });
  });
}
