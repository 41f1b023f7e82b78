// Opening the embedded store's database file: private to its owner, with the store's settings,
// its schema brought up to date.
import Database from 'better-sqlite3';
import { migrateSqlite, readMigrations } from './migrate.js';
import { refuseBesideServer } from './server-lock.js';
import { preparePrivateDatabaseFile } from './private-files.js';

/** Opens (creating if needed, readable by its owner only) the database file with the store's settings. ':memory:' works too. */
export function openSqliteFile(file: string): Database.Database {
  if (file !== ':memory:') preparePrivateDatabaseFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * Opens the database file as openSqliteFile does and brings its schema up to date; unless `serving`
 * (the server holding its lock), not while an older server serves the file.
 */
export function openSqliteDatabase(file: string, serving = false): Database.Database {
  const db = openSqliteFile(file);
  try {
    migrateSqlite(db, readMigrations(), serving ? undefined : refuseBesideServer(file));
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
