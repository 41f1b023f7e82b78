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

interface LogLine {
  level: number;
  msg: string;
  component?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
}

const INFO = 30;
const DEBUG = 20;

/** Serves one authenticated request and one unknown route; returns every line the server logged. */
async function linesLoggedFor(flags: ConfigFlags): Promise<LogLine[]> {
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
    const listed = await app.inject({ method: 'GET', url: '/v2/serverless', headers: { authorization: `Bearer ${token}` } });
    assert.equal(listed.statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
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
