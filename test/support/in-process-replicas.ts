// Gantry replicas in the test's own process, sharing one PostgreSQL schema: each with its own store
// (its own connections), services and app, as separate processes would have.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type ConfigFlags } from '../../src/config.js';
import { createServices } from '../../src/compose.js';
import type { Services } from '../../src/services/services.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { TEST_SECRET_KEY } from './test-store.js';

export interface Replica {
  app: App;
  services: Services;
  store: PostgresStore;
  dataDir: string;
}

/** `prepareOnly`: as the server is just before it listens, its clock read but its cluster not joined. */
export async function startReplica(url: string, flags: ConfigFlags = {}, { prepareOnly = false } = {}): Promise<Replica> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-replica-'));
  const store = await PostgresStore.open({ url, max: 4 });
  const config = loadConfig({ dataDir, database: url, secretKey: TEST_SECRET_KEY, workerProvider: 'none', ...flags }, {});
  const services = createServices(config, store);
  if (prepareOnly) await services.prepare();
  else await services.start();
  return { app: await buildApp(services), services, store, dataDir };
}

export async function stopReplica(replica: Replica): Promise<void> {
  await replica.app.close();
  await replica.services.close();
  rmSync(replica.dataDir, { recursive: true, force: true });
}
