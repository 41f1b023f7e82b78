// One store per conformance file: opened before its tests, closed and dropped after them. The
// runner repeats every file on PostgreSQL, where each gets its own schema.
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore, type TestStore } from '../support/test-store.js';
import type { Store } from '../../src/store/store.js';

export interface SuiteStore {
  /** The store under test. */
  readonly store: Store;
  /** Another connection to the same data, as a second process would open; closed after the file. */
  another(): Promise<Store>;
}

/** `seed` writes what every test of the file builds on (accounts, say), once the store is open. */
export function useTestStore(seed?: (store: Store) => Promise<void>): SuiteStore {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-conformance-'));
  const others: Store[] = [];
  let opened: TestStore | undefined;
  before(async () => {
    opened = await openTestStore(dataDir);
    await seed?.(opened.store);
  });
  after(async () => {
    for (const store of others) await store.close();
    await opened?.store.close();
    await opened?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get store() {
      if (!opened) throw new Error('the store opens in before(); use it inside a test');
      return opened.store;
    },
    async another() {
      if (!opened) throw new Error('the store opens in before(); use it inside a test');
      const store = await opened.reopen();
      others.push(store);
      return store;
    },
  };
}
