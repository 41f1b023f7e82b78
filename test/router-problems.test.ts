// Errors raised before a route runs are problem+json too: the router's (bad percent-encoding,
// over-long path parameters) and Node's HTTP parser's (malformed requests, huge headers,
// unsupported Expect), checked over real sockets where the parser is involved.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startLive, type Live } from './support/live.js';

let g: Live;
let port = 0;
before(async () => {
  g = await startLive();
  port = Number(new URL(g.url).port);
});
after(() => g.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as bytes on a fresh socket and reads the whole answer until the server closes. */
function rawExchange(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
    // Half-close only when the request is complete: the parser answers first for bad ones.
    setTimeout(() => socket.end(), 200);
  });
}

/** The reason phrase every problem of a status is titled with. */
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  414: 'URI Too Long',
  405: 'Method Not Allowed',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

function assertProblem(answer: { status: number; headers: Record<string, unknown>; body: string }, status: number) {
  assert.equal(answer.status, status, answer.body);
  assert.match(String(answer.headers['content-type']), /^application\/problem\+json/, answer.body);
  const body = JSON.parse(answer.body) as { status: number; title: string; detail: string };
  assert.equal(body.status, status);
  assert.equal(body.title, TITLES[status]);
  assert.equal(typeof body.detail, 'string');
}

const authorized = (url: string) => g.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${g.adminKey}` } });

describe('router errors', () => {
  test('bad percent-encoding in a path is a 400 problem', async () => {
    for (const url of ['/v2/serverless/%ff', '/v2/serverless/%E0%A4%A', `/v2/${g.endpointId}/status/%c0`]) {
      const res = await authorized(url);
      assertProblem({ status: res.statusCode, headers: res.headers, body: res.body }, 400);
    }
  });

  test('a path parameter over 256 characters is a 414 problem; shorter unknown ids are 404 problems', async () => {
    const long = await authorized(`/v2/serverless/${'a'.repeat(257)}`);
    assertProblem({ status: long.statusCode, headers: long.headers, body: long.body }, 414);
    const unknown = await authorized(`/v2/serverless/${'a'.repeat(200)}`);
    assertProblem({ status: unknown.statusCode, headers: unknown.headers, body: unknown.body }, 404);
  });

  test('a worker id of 128 characters, the most the API allows, reaches its route', async () => {
    const workerId = 'w'.repeat(128);
    const res = await g.worker('GET', `/ping/${workerId}?gpu=none`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });
});

describe("Node's HTTP parser errors", () => {
  test('a malformed request line is a 400 problem', async () => {
    assertProblem(await rawExchange('GET /v2/serverless HTTP/1.1 extra\r\nhost: x\r\n\r\n'), 400);
  });

  test('a malformed header is a 400 problem', async () => {
    assertProblem(await rawExchange('GET /v2/serverless HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n'), 400);
  });

  test('headers over the size limit are a 431 problem', async () => {
    assertProblem(await rawExchange(`GET /v2/serverless HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`), 431);
  });

  test('an Expect other than 100-continue is a 417 problem', async () => {
    assertProblem(await rawExchange('GET /v2/serverless HTTP/1.1\r\nhost: x\r\nexpect: teapot\r\n\r\n'), 417);
  });

  test('CONNECT is a 405 problem, not a dropped connection: Gantry is no forward proxy', async () => {
    const answer = await rawExchange('CONNECT 127.0.0.1:22 HTTP/1.1\r\nhost: 127.0.0.1:22\r\n\r\n');
    assertProblem(answer, 405);
    assert.match(String(answer.headers.allow), /GET/);
  });

  test('an upgrade on a path that serves none is a 404 problem', async () => {
    assertProblem(await rawExchange('GET /v2/serverless HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n'), 404);
  });
});
