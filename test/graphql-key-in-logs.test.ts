// runpodctl sends its API key in the URL (?api_key=); request log lines must not carry it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { createServices } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

test('a GraphQL call with ?api_key= is logged with the key redacted', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-graphql-log-'));
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const config = loadConfig({ dataDir, requestLogLevel: 'info' }, {});
  const log = pino({ level: 'debug' }, stream);
  const services = createServices(config, new SqliteStore(join(dataDir, 'gantry.db')), log);
  const app = await buildApp(services, { logger: log });
  const { token } = await services.apiKeys.create({ name: 'admin' });
  try {
    const res = await app.inject({
      method: 'POST',
      url: `/graphql?api_key=${token}&x=1`,
      payload: { query: '{ myself { id } }', variables: null },
    });
    assert.equal(res.statusCode, 200, res.body);
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const text = written.join('');
  assert.match(text, /\/graphql\?api_key=\[REDACTED\]&x=1/, 'the request is logged');
  assert.ok(!text.includes(token), 'the key is not');
});
