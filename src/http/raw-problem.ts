// Problems answered by the balancer itself, outside Fastify: on a plain response, or written
// straight onto a socket whose upgrade could not be passed on.
import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from '../domain/errors.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

export function sendRawProblem(res: ServerResponse, problem: ApiError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(problem.toBody());
  res.writeHead(problem.status, {
    ...headers,
    ...problem.headers,
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function writeSocketProblem(socket: Duplex, problem: ApiError, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(problem.toBody());
  const lines = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    ...Object.entries({ ...headers, ...problem.headers }).map(([name, value]) => `${name}: ${value}`),
    `content-type: ${PROBLEM_CONTENT_TYPE}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
