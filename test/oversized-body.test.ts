// A client that sends a body over the limit reads the 413 instead of a broken pipe: the server
// reads and drops the rest of the body (up to a bound) before it closes the connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startLive, type Live } from './support/live.js';
import { JOB_LIMITS } from '../src/domain/job-state.js';

let g: Live;
before(async () => {
  g = await startLive();
});
after(() => g.close());

interface Outcome {
  status?: number;
  contentType?: string;
  error?: string;
}

/** Sends `bytes` of body in 64 KB chunks, honouring backpressure, and reports what the client saw. */
function sendBody(path: string, bytes: number, declareLength: boolean): Promise<Outcome> {
  const target = new URL(g.url);
  return new Promise((resolve) => {
    const outcome: Outcome = {};
    const req = request({
      host: target.hostname,
      port: target.port,
      method: 'POST',
      path,
      headers: {
        authorization: g.adminKey,
        'content-type': 'application/json',
        ...(declareLength ? { 'content-length': String(bytes) } : {}),
      },
    });
    req.on('response', (res) => {
      outcome.status = res.statusCode;
      outcome.contentType = res.headers['content-type'];
      res.resume();
    });
    // A broken pipe may come before or after the answer's head; either way the client saw one.
    req.on('error', (error: NodeJS.ErrnoException) => {
      outcome.error = error.code ?? error.message;
    });
    req.on('close', () => resolve(outcome));
    // A server that neither answers nor closes would otherwise hang the suite.
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer after 15 s (status ${outcome.status ?? 'none'}, ${sent} bytes sent)`)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    // One chunk per turn of the event loop, like a client on a real network: the server has
    // answered and closed long before the last byte would otherwise be written.
    const pump = () => {
      if (outcome.error !== undefined) return;
      if (sent >= bytes) return void req.end();
      const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
      sent += piece.length;
      if (req.write(piece)) setImmediate(pump);
      else req.once('drain', pump);
    };
    pump();
  });
}

describe('oversized bodies', () => {
  for (const declareLength of [true, false]) {
    test(`a /run body 1 byte over the limit gets its 413 every time (${declareLength ? 'content-length' : 'chunked'})`, async () => {
      for (let attempt = 0; attempt < 6; attempt++) {
        const outcome = await sendBody(`/v2/${g.endpointId}/run`, JOB_LIMITS.runBodyBytes + 1, declareLength);
        assert.equal(outcome.error, undefined, `attempt ${attempt}: the client saw ${outcome.error}`);
        assert.equal(outcome.status, 413, `attempt ${attempt}`);
        assert.match(outcome.contentType ?? '', /^application\/problem\+json/);
      }
    });
  }
});
