// Numbered, append-only migrations (NNN_name.sql), read and chosen the same way for both databases;
// only how each is applied and recorded differs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrationFiles(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
}

/** The migrations not applied yet, in order. Refuses a database a newer Gantry has migrated past what this one knows. */
export function pendingMigrations(migrations: Migration[], applied: ReadonlySet<number>): Migration[] {
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => v > newest);
  if (unknown.length > 0) {
    throw new Error(`database schema version ${Math.max(...unknown)} is newer than this Gantry (knows up to ${newest})`);
  }
  return migrations.filter((m) => !applied.has(m.version));
}
