// Per-request log lines: quiet at info by default so warnings and lifecycle lines stand out on a
// busy server, and raised to info (or any level) with --request-log-level.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { createServices } from '../src/compose.js';
import { loadConfig, type ConfigFlags } from '../src/config.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { queueEndpointBody } from './support/endpoint-bodies.js';

interface LogLine {
  level: number;
  msg: string;
  component?: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
}

const INFO = 30;
const DEBUG = 20;

type Requests = (app: Awaited<ReturnType<typeof buildApp>>, token: string) => Promise<void>;

/** One authenticated request and one unknown route. */
const listAndMiss: Requests = async (app, token) => {
  const listed = await app.inject({ method: 'GET', url: '/v2/serverless', headers: { authorization: `Bearer ${token}` } });
  assert.equal(listed.statusCode, 200);
  assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
};

/** Serves `requests` (by default listAndMiss); returns every line the server logged. */
async function linesLoggedFor(flags: ConfigFlags, requests: Requests = listAndMiss): Promise<LogLine[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-request-log-'));
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const config = loadConfig({ dataDir, ...flags }, {});
  const log = pino({ level: config.logLevel }, stream);
  const services = createServices(config, new SqliteStore(join(dataDir, 'gantry.db')), log);
  const app = await buildApp(services, { logger: log });
  try {
    const { token } = await services.apiKeys.create({ name: 'admin' });
    await requests(app, token);
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines;
}

const requestLines = (lines: LogLine[]) => lines.filter((line) => line.req !== undefined || line.res !== undefined);

test('with default settings a request writes no line at info', async () => {
  const lines = await linesLoggedFor({});
  assert.deepEqual(requestLines(lines), [], JSON.stringify(lines));
  assert.equal(lines.filter((line) => line.level === INFO).length, 0, JSON.stringify(lines));
});

test('at --log-level debug each request logs its method, path and status at debug', async () => {
  const lines = requestLines(await linesLoggedFor({ logLevel: 'debug' }));
  assert.deepEqual(
    lines.map((line) => [line.level, line.component, line.msg, line.req?.method, line.req?.url ?? line.res?.statusCode]),
    [
      [DEBUG, 'http', 'incoming request', 'GET', '/v2/serverless'],
      [DEBUG, 'http', 'request completed', undefined, 200],
      [DEBUG, 'http', 'incoming request', 'GET', '/nowhere'],
      [DEBUG, 'http', 'request completed', undefined, 404],
    ],
  );
  // Each request's lines carry its own id, so the lines of one request can be picked out.
  const ids = lines.map((line) => line.reqId);
  assert.ok(
    ids.every((id) => typeof id === 'string' && id.length > 0),
    JSON.stringify(ids),
  );
  assert.equal(ids[0], ids[1]);
  assert.equal(ids[2], ids[3]);
  assert.notEqual(ids[0], ids[2]);
});

test('--request-log-level info writes each request at info', async () => {
  const lines = requestLines(await linesLoggedFor({ requestLogLevel: 'info' }));
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg, line.req?.url ?? line.res?.statusCode]),
    [
      [INFO, 'incoming request', '/v2/serverless'],
      [INFO, 'request completed', 200],
      [INFO, 'incoming request', '/nowhere'],
      [INFO, 'request completed', 404],
    ],
  );
});

test('a line a request writes at a level that is on carries the request id', async () => {
  // The process provider runs an endpoint's command; one without any is accepted with a warning.
  const lines = await linesLoggedFor({}, async (app, token) => {
    const created = await app.inject({
      method: 'POST',
      url: '/v2/serverless',
      headers: { authorization: `Bearer ${token}` },
      payload: queueEndpointBody('no-command'),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  const warning = lines.find((line) => line.msg === 'endpoint accepted, but it will not run as it stands');
  assert.ok(warning, JSON.stringify(lines));
  assert.equal(warning.component, 'http');
  assert.ok(typeof warning.reqId === 'string' && warning.reqId.length > 0, JSON.stringify(warning));
});
