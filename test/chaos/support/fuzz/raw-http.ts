// Malformed HTTP that fetch cannot send: written byte for byte on a TCP socket, and the first
// final answer read back (status and content type). A connection closed without an answer is
// reported as such; so is one the server keeps open waiting for bytes that never come.
import { connect } from 'node:net';

export interface RawCase {
  name: string;
  /** The request bytes, with `{host}` standing for 127.0.0.1:<port>. */
  bytes: string;
  /** Sent after an interim `100 Continue` answer. */
  afterContinue?: string;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  /** 'answered', 'closed' (no answer before the connection ended) or 'waiting' (still open at the timeout). */
  outcome: 'answered' | 'closed' | 'waiting';
  head: string;
}

export function sendRaw(port: number, rawCase: RawCase, timeoutMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    let continued = false;
    let settled = false;
    const finish = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish({ status: 0, contentType: '', outcome: 'waiting', head: received.slice(0, 200) }), timeoutMs);
    socket.on('connect', () => socket.write(rawCase.bytes.replaceAll('{host}', `127.0.0.1:${port}`)));
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = received.slice(0, end);
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
        if (status >= 100 && status < 200) {
          // An interim answer: send the body it invites (once), then wait for the final one.
          received = received.slice(end + 4);
          if (status === 100 && rawCase.afterContinue !== undefined && !continued) {
            continued = true;
            socket.write(rawCase.afterContinue);
          }
          continue;
        }
        const contentType = /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
        return finish({ status, contentType, outcome: 'answered', head: head.slice(0, 200) });
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish({ status: 0, contentType: '', outcome: 'closed', head: received.slice(0, 200) }));
  });
}

/** The malformed requests, for an API key and the ids of a live endpoint. */
export function rawCases(apiKey: string, endpointId: string): RawCase[] {
  const auth = `Authorization: Bearer ${apiKey}\r\n`;
  const run = `/v2/${endpointId}/run`;
  const body = '{"input":{"a":1}}';
  return [
    { name: 'garbage request line', bytes: 'GARBAGE\r\n\r\n' },
    { name: 'unknown HTTP version', bytes: 'GET /v2/serverless HTTP/9.9\r\nHost: {host}\r\n\r\n' },
    { name: 'request line without version', bytes: 'GET /v2/serverless\r\nHost: {host}\r\n\r\n' },
    { name: 'double space in request line', bytes: 'GET  /v2/serverless HTTP/1.1\r\nHost: {host}\r\n\r\n' },
    { name: 'space in the path', bytes: `GET /v2/serverless/a b HTTP/1.1\r\nHost: {host}\r\n${auth}\r\n` },
    { name: 'raw byte 0xff in the path', bytes: `GET /v2/serverless/\xff HTTP/1.1\r\nHost: {host}\r\n${auth}\r\n` },
    { name: 'absolute-form target', bytes: `GET http://elsewhere.example/v2/serverless HTTP/1.1\r\nHost: {host}\r\n${auth}\r\n` },
    { name: 'asterisk target', bytes: 'OPTIONS * HTTP/1.1\r\nHost: {host}\r\n\r\n' },
    { name: 'header without colon', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\nBroken header\r\n${auth}\r\n` },
    { name: 'header name with space', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\nBad Name: x\r\n${auth}\r\n` },
    { name: 'missing Host on HTTP/1.1', bytes: `GET /v2/serverless HTTP/1.1\r\n${auth}\r\n` },
    { name: 'two Host headers', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\nHost: other\r\n${auth}\r\n` },
    { name: '64 KB header', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\nX-Huge: ${'h'.repeat(64 * 1024)}\r\n${auth}\r\n` },
    {
      name: '2000 headers',
      bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\n${Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join('')}${auth}\r\n`,
    },
    { name: 'bare LF line endings', bytes: `GET /v2/serverless HTTP/1.1\nHost: {host}\n${auth.replace('\r\n', '\n')}\n` },
    {
      name: 'Content-Length not a number',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: abc\r\n\r\n${body}`,
    },
    {
      name: 'negative Content-Length',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: -1\r\n\r\n${body}`,
    },
    {
      name: 'two different Content-Lengths',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 17\r\n\r\n${body}`,
    },
    {
      name: 'Content-Length and chunked together',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 17\r\nTransfer-Encoding: chunked\r\n\r\n11\r\n${body}\r\n0\r\n\r\n`,
    },
    {
      name: 'bad chunk size',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    },
    {
      name: 'unknown transfer coding',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n${body}`,
    },
    {
      name: 'Content-Length larger than the body',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 400\r\n\r\n${body}`,
    },
    {
      name: 'Content-Length 1 GB on /run',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n${body}`,
    },
    {
      name: 'Expect 100-continue, then the body',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      afterContinue: body,
    },
    {
      name: 'Expect 100-continue, body never sent',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    },
    {
      name: 'Expect 100-continue with an oversized length',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 20000000\r\nExpect: 100-continue\r\n\r\n`,
    },
    {
      name: 'Expect 100-continue without auth',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      afterContinue: body,
    },
    {
      name: 'Expect with an unknown expectation',
      bytes: `POST ${run} HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: teapot\r\n\r\n${body}`,
    },
    { name: 'Expect 100-continue on a GET', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\n${auth}Expect: 100-continue\r\n\r\n` },
    {
      name: 'GET with a JSON body',
      bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 1\r\n\r\n{`,
    },
    { name: 'TRACE method', bytes: `TRACE /v2/serverless HTTP/1.1\r\nHost: {host}\r\n${auth}\r\n` },
    { name: 'unknown method', bytes: `FROB /v2/serverless HTTP/1.1\r\nHost: {host}\r\n${auth}\r\n` },
    { name: 'non-ASCII authorization', bytes: `GET /v2/serverless HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer \xe9\xe9\r\n\r\n` },
    { name: 'endpoint host form, unknown id', bytes: `GET /echo HTTP/1.1\r\nHost: nosuchendpoint.localhost\r\n${auth}\r\n` },
    { name: 'endpoint host form, queue endpoint', bytes: `GET /echo HTTP/1.1\r\nHost: ${endpointId}.localhost\r\n${auth}\r\n` },
    { name: 'HTTP/1.0 without Host', bytes: `GET /v2/serverless HTTP/1.0\r\n${auth}\r\n` },
  ];
}
