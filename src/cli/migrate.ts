// `gantry migrate`: brings the database schema up to date and says what it applied.
import { Command } from 'commander';
import { migrateSqlite } from '../store/sqlite/migrate.js';
import { databaseFile } from '../services/container.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { configFrom, withDataDir } from './options.js';

export function migrateCommand(): Command {
  return withDataDir(new Command('migrate'))
    .description('apply pending database migrations')
    .action((flags: { dataDir?: string }) => {
      const file = databaseFile(configFrom({ dataDir: flags.dataDir }));
      mkdirSync(dirname(file), { recursive: true });
      const db = new Database(file);
      try {
        const applied = migrateSqlite(db);
        if (applied.length === 0) process.stdout.write(`schema up to date (${file})\n`);
        for (const m of applied) process.stdout.write(`applied ${String(m.version).padStart(3, '0')}_${m.name}\n`);
      } finally {
        db.close();
      }
    });
}
