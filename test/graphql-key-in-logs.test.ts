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

test('a GraphQL call with ?api_key= is logged with the key redacted, however the name is encoded', async () => {
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
    // The server decodes parameter names: api%5Fkey and %61pi_key are api_key too, and work.
    for (const name of ['api_key', 'api%5Fkey', '%61pi_key']) {
      const res = await app.inject({
        method: 'POST',
        url: `/graphql?${name}=${token}&x=1`,
        payload: { query: '{ myself { id } }', variables: null },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const text = written.join('');
  assert.match(text, /\/graphql\?api_key=\[REDACTED\]&x=1/, 'the request is logged');
  assert.match(text, /\/graphql\?api%5Fkey=\[REDACTED\]&x=1/);
  assert.match(text, /\/graphql\?%61pi_key=\[REDACTED\]&x=1/);
  assert.ok(!text.includes(token.slice(20)), 'the key is not, however its name is spelt');
});
