// The balancer's pass-through on its own, between real sockets: a front server forwarding to a
// worker server that misbehaves on purpose (drops a kept-alive connection, never answers, is not
// there at all), to pin down which failures are retried, which answer 502 or 504, and which take
// the worker out of rotation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forward, workerConnections } from '../src/balancer/forward.js';
import { reservePort } from '../src/reserve-port.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** When set, the second request on each worker connection is dropped without an answer. */
let dropSecondOnEachConnection = false;
const workerFailures: string[] = [];
const seenBodies: string[] = [];
let worker: Server;
let front: Server;
let unusedPort: number;
const connections = workerConnections();

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Requests the worker received, answered or not. */
let served = 0;

function workerAnswer(req: IncomingMessage, res: ServerResponse): void {
  served += 1;
  const socket = req.socket as typeof req.socket & { served?: number };
  socket.served = (socket.served ?? 0) + 1;
  if (dropSecondOnEachConnection && socket.served === 2) return void socket.destroy();
  if (req.url?.startsWith('/hang')) return;
  if (req.url?.startsWith('/reject')) return void res.writeHead(413, { 'content-type': 'text/plain' }).end('too big for me');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    seenBodies.push(body);
    res.end(JSON.stringify({ served: socket.served, expect: req.headers.expect ?? null }));
  });
}

before(async () => {
  worker = createServer(workerAnswer);
  const workerPort = await listen(worker);
  const reservation = await reservePort('127.0.0.1');
  unusedPort = reservation.port;
  await reservation.release();
  front = createServer((req, res) => {
    const port = req.url?.startsWith('/absent') ? unusedPort : workerPort;
    void forward(req, res, {
      address: { host: '127.0.0.1', port, healthPort: port },
      path: req.url ?? '/',
      timeoutMs: 500,
      dispatcher: connections,
      responseHeaders: { 'x-added': 'yes' },
      onWorkerFailure: (reason) => workerFailures.push(reason),
    });
  });
  await listen(front);
});

after(async () => {
  front.close();
  worker.close();
  await connections.destroy();
});

function call(path: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const { port } = front.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (options.headers?.expect === '100-continue') req.on('continue', () => req.end(options.body));
    else req.end(options.body);
  });
}

test('a request without a body is sent again when the worker drops the kept-alive connection it went out on', async () => {
  dropSecondOnEachConnection = true;
  workerFailures.length = 0;
  try {
    const first = await call('/one');
    const second = await call('/two');
    assert.deepEqual([first.status, second.status], [200, 200], second.text);
    assert.equal(JSON.parse(second.text).served, 1, 'answered on a fresh connection');
    assert.equal(second.headers['x-added'], 'yes', "the balancer's own headers are added to the worker's answer");
    assert.deepEqual(workerFailures, [], 'a dropped idle connection is not the worker failing');
  } finally {
    dropSecondOnEachConnection = false;
  }
});

test('a POST without a body is not sent twice either: the worker may have received it before it dropped the connection', async () => {
  dropSecondOnEachConnection = true;
  try {
    await call('/warm');
    seenBodies.length = 0;
    const before = served;
    const answer = await call('/post-empty', { method: 'POST' });
    assert.equal(answer.status, 502, answer.text);
    assert.equal(served - before, 1, 'the worker saw the request once');
  } finally {
    dropSecondOnEachConnection = false;
  }
});

test('a request with a body is not sent twice: a dropped connection answers 502', async () => {
  dropSecondOnEachConnection = true;
  try {
    await call('/warm');
    seenBodies.length = 0;
    workerFailures.length = 0;
    const answer = await call('/post', { method: 'POST', body: 'only once' });
    assert.equal(answer.status, 502, answer.text);
    assert.match(JSON.parse(answer.text).detail, /the worker failed before answering/);
    assert.deepEqual(seenBodies, [], 'the body reached no worker');
    assert.equal(workerFailures.length, 1, 'a worker that breaks a connection is taken out of rotation at once');
  } finally {
    dropSecondOnEachConnection = false;
  }
});

test('a worker that cannot be reached answers 502 and is reported, once', async () => {
  workerFailures.length = 0;
  const answer = await call('/absent');
  assert.equal(answer.status, 502);
  assert.match(JSON.parse(answer.text).detail, /ECONNREFUSED/);
  assert.equal(workerFailures.length, 1);
  assert.match(workerFailures[0]!, /ECONNREFUSED/);
});

test('a worker that does not answer within the timeout gives 504', async () => {
  const answer = await call('/hang');
  assert.equal(answer.status, 504);
  assert.equal(answer.headers['x-added'], 'yes', 'and to its own problems');
  assert.match(JSON.parse(answer.text).detail, /timeout of 500 ms/);
});

test('Expect: 100-continue is answered by the balancer, and the body still reaches the worker', async () => {
  seenBodies.length = 0;
  const answer = await call('/upload', {
    method: 'POST',
    body: 'after continue',
    headers: { expect: '100-continue', 'content-length': '14' },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(JSON.parse(answer.text).expect, null, 'the worker is not asked to continue again');
  assert.deepEqual(seenBodies, ['after continue']);
});

test("a worker's early answer to an upload it does not read reaches the client", async () => {
  const upload = 'x'.repeat(8 * 1024 * 1024);
  const answer = await call('/reject', { method: 'POST', body: upload });
  assert.deepEqual([answer.status, answer.text], [413, 'too big for me']);
  const after = await call('/after-reject');
  assert.equal(after.status, 200, 'the balancer goes on serving');
});
