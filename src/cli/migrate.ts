// `gantry migrate`: brings the database schema up to date and says what it applied.
import { Command } from 'commander';
import { configFrom, withDataDir, type StoreFlags } from './options.js';
import { migrationFileName } from '../store/shared/migrations.js';

export function migrateCommand(): Command {
  return withDataDir(new Command('migrate'))
    .description('apply pending database migrations')
    .action(async (flags: StoreFlags) => {
      const { migrateStore } = await import('../store/migrate-store.js'); // see decision 38
      const { applied, location } = await migrateStore(configFrom({ dataDir: flags.dataDir, database: flags.database }));
      if (applied.length === 0) process.stdout.write(`schema up to date (${location})\n`);
      for (const m of applied) process.stdout.write(`applied ${migrationFileName(m)}\n`);
    });
}
