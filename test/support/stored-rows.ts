// Reads a table the way the database holds it, without Gantry: for tests that check what is
// stored at rest (sealed values, no plaintext), on whichever store the harness runs.
import Database from 'better-sqlite3';
import pg from 'pg';
import { databaseFile } from '../../src/store/store-location.js';
import type { Harness } from './harness.js';

export async function storedRows(h: Harness, table: string): Promise<Record<string, unknown>[]> {
  const url = h.services.config.databaseUrl;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(`SELECT * FROM ${table}`)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  }
  const db = new Database(databaseFile(h.services.config), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
