// Builds a real Gantry app on a real store (a SQLite file in a temporary directory, or a fresh
// PostgreSQL schema when the suite runs on PostgreSQL), with keys to call it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type ConfigFlags } from '../../src/config.js';
import { createServices, type Services } from '../../src/compose.js';
import type { NewKeyOptions } from '../../src/services/api-keys.js';
import { openTestStore } from './test-store.js';

export interface Harness {
  app: App;
  services: Services;
  dataDir: string;
  /** A full-access key of the account "default". */
  adminKey: string;
  adminAccountId: string;
  newKey(options?: NewKeyOptions): Promise<string>;
  /** A request with the admin key (or `key`) as a Bearer token. */
  call(method: string, url: string, body?: unknown, key?: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Where the services' and request logs go (a pino logger writing to a stream the test reads); none when omitted. */
  logger?: FastifyBaseLogger;
}

export async function startHarness(
  flags: ConfigFlags = {},
  env: Record<string, string> = {},
  options: HarnessOptions = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-test-'));
  const testStore = await openTestStore(dataDir);
  const config = loadConfig({ dataDir, ...testStore.flags, ...flags }, env);
  const services = createServices(config, testStore.store, options.logger);
  const app = await buildApp(services, { logger: options.logger });
  const newKey = async (options: NewKeyOptions = {}) => (await services.apiKeys.create(options)).token;
  const admin = await services.apiKeys.create({ name: 'admin' });
  const adminKey = admin.token;
  return {
    adminAccountId: admin.record.accountId,
    app,
    services,
    dataDir,
    adminKey,
    newKey,
    call: (method, url, body, key = adminKey) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    async close() {
      await app.close();
      await services.close();
      await testStore.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Parses a problem+json response, failing loudly if it is not one. */
export function problem(response: LightMyRequestResponse): { title: string; status: number; detail: string; errors?: string[] } {
  if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
    throw new Error(`expected problem+json, got ${String(response.headers['content-type'])}: ${response.body}`);
  }
  return response.json();
}

/** A small, fixed catalog so rule tests do not move when the shipped catalog changes. */
export const FIXTURE_CATALOG = new URL('../fixtures/catalog.json', import.meta.url).pathname;
