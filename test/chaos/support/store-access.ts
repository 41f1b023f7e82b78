// Keys and worker credentials are made the way `gantry keys create` and `gantry worker-env` make
// them, straight in the store the server uses, but in-process: a CLI start costs seconds on a
// loaded machine and the scenarios need several.
import { join } from 'node:path';
import type { Store } from '../../../src/store/store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { ApiKeyService, type NewKeyOptions } from '../../../src/services/api-keys.js';
import { WorkerCredentialService } from '../../../src/services/worker-credentials.js';

/** Where a server keeps its data: the SQLite file of a data directory, or a PostgreSQL URL. */
export type StoreLocation = { dataDir: string } | { databaseUrl: string };

async function openStore(location: StoreLocation): Promise<Store> {
  if ('databaseUrl' in location) return PostgresStore.open({ url: location.databaseUrl, max: 2 });
  return new SqliteStore(join(location.dataDir, 'gantry.db'));
}

async function withStore<T>(location: StoreLocation, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(location);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export interface IssuedKey {
  token: string;
  keyId: string;
  accountId: string;
}

export function createApiKey(location: StoreLocation, options: NewKeyOptions): Promise<IssuedKey> {
  return withStore(location, async (store) => {
    const created = await new ApiKeyService(store).create(options);
    return { token: created.token, keyId: created.record.id, accountId: created.record.accountId };
  });
}

export function revokeApiKey(location: StoreLocation, keyId: string): Promise<boolean> {
  return withStore(location, (store) => new ApiKeyService(store).revoke(keyId));
}

/** A worker credential for one endpoint, as `gantry worker-env` issues it. */
export function createWorkerCredential(location: StoreLocation, endpointId: string): Promise<string> {
  return withStore(location, (store) => new WorkerCredentialService(store).create(endpointId));
}
