// `gantry migrate`: brings the database schema up to date and says what it applied.
import { Command } from 'commander';
import Database from 'better-sqlite3';
import type { Migration } from '../store/sqlite/migrate.js';
import { migrateSqlite } from '../store/sqlite/migrate.js';
import { preparePrivateDatabaseFile } from '../store/sqlite/private-files.js';
import { migratePostgres } from '../store/postgres/migrate.js';
import { createPool } from '../store/postgres/database.js';
import { databaseFile, storeLocation } from '../store/open-store.js';
import { configFrom, withDataDir, type StoreFlags } from './options.js';

async function migrate(flags: StoreFlags): Promise<{ applied: Migration[]; location: string }> {
  const config = configFrom({ dataDir: flags.dataDir, database: flags.database });
  if (config.databaseUrl) {
    const pool = createPool({ url: config.databaseUrl, max: 1 });
    try {
      return { applied: await migratePostgres(pool), location: storeLocation(config) };
    } finally {
      await pool.end();
    }
  }
  const file = databaseFile(config);
  preparePrivateDatabaseFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  try {
    return { applied: migrateSqlite(db), location: file };
  } finally {
    db.close();
  }
}

export function migrateCommand(): Command {
  return withDataDir(new Command('migrate'))
    .description('apply pending database migrations')
    .action(async (flags: StoreFlags) => {
      const { applied, location } = await migrate(flags);
      if (applied.length === 0) process.stdout.write(`schema up to date (${location})\n`);
      for (const m of applied) process.stdout.write(`applied ${String(m.version).padStart(3, '0')}_${m.name}\n`);
    });
}
