// Numbered, append-only migrations (NNN_name.sql), read and chosen the same way for both databases;
// only how each is applied and recorded differs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaError } from './refusals.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Why replicas of an older Gantry cannot keep running once this migration is applied (it drops
   * what they read, or changes a rule they would break), from its `-- Older replicas must stop:`
   * line; undefined when they can.
   */
  olderReplicasMustStop?: string;
}

/** The schema version the migrations bring a database to. */
export function newestVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/** A migration as its file is named, without the extension: `021_replica_schema_versions`. */
export function migrationFileName(migration: Migration): string {
  return `${String(migration.version).padStart(3, '0')}_${migration.name}`;
}

const OLDER_REPLICAS_MUST_STOP = /^-- Older replicas must stop: (.+)$/m;

export function readMigrationFiles(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const sql = readFileSync(join(dir, file), 'utf8');
      const why = OLDER_REPLICAS_MUST_STOP.exec(sql)?.[1];
      return { version: Number(file.slice(0, 3)), name: file.slice(4, -4), sql, ...(why ? { olderReplicasMustStop: why } : {}) };
    });
}

/** The migrations not applied yet, in order. Refuses a database a newer Gantry has migrated past what this one knows. */
export function pendingMigrations(migrations: Migration[], applied: ReadonlySet<number>): Migration[] {
  const newest = newestVersion(migrations);
  const unknown = [...applied].filter((v) => v > newest);
  if (unknown.length > 0) {
    throw new SchemaError(`database schema version ${Math.max(...unknown)} is newer than this Gantry (knows up to ${newest})`);
  }
  return migrations.filter((m) => !applied.has(m.version));
}
