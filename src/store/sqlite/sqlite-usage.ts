// Usage intervals on SQLite: one writer at a time, so the overlap check and the write of an
// append (one IMMEDIATE transaction) see every interval recorded before them.
import type Database from 'better-sqlite3';
import type { UsageInterval } from '../../domain/usage.js';
import {
  CONTINUES,
  continuation,
  USAGE_COLUMNS,
  usageFromRow,
  usageValues,
  type UsageQuery,
  type UsageRow,
  type UsageStore,
} from '../usage-store.js';

export class SqliteUsageStore implements UsageStore {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async append(intervals: readonly UsageInterval[]): Promise<number> {
    const write = this.db.transaction(() => {
      let recorded = 0;
      for (const interval of intervals) {
        if (this.statements.overlaps.get(interval.subjectId, interval.toMs, interval.fromMs)) continue;
        const extended = this.statements.extend.run(interval.toMs, ...continuation(interval)).changes;
        recorded += extended > 0 ? extended : this.statements.insert.run(...usageValues(interval)).changes;
      }
      return recorded;
    });
    return write.immediate();
  }

  async lastEnds(subjectIds: readonly string[]): Promise<Map<string, number>> {
    const rows = this.statements.lastEnds.all(JSON.stringify(subjectIds)) as { subject_id: string; last_end: number }[];
    return new Map(rows.map((row) => [row.subject_id, row.last_end]));
  }

  async list(query: UsageQuery): Promise<UsageInterval[]> {
    const rows = this.statements.list.all({
      accountId: query.accountId,
      fromMs: query.fromMs,
      toMs: query.toMs,
      family: query.family ?? null,
      ownerId: query.ownerId ?? null,
    }) as UsageRow[];
    return rows.map(usageFromRow);
  }
}

function prepareStatements(db: Database.Database) {
  return {
    overlaps: db.prepare('SELECT 1 FROM usage_intervals WHERE subject_id = ? AND from_ms < ? AND to_ms > ?'),
    extend: db.prepare(`UPDATE usage_intervals SET to_ms = ? WHERE ${CONTINUES}`),
    insert: db.prepare(`INSERT INTO usage_intervals (${USAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
    lastEnds: db.prepare(
      `SELECT subject_id, MAX(to_ms) AS last_end FROM usage_intervals
       WHERE subject_id IN (SELECT value FROM json_each(?)) GROUP BY subject_id`,
    ),
    list: db.prepare(
      `SELECT ${USAGE_COLUMNS} FROM usage_intervals
       WHERE account_id = @accountId AND to_ms > @fromMs AND from_ms < @toMs
         AND (@family IS NULL OR family = @family) AND (@ownerId IS NULL OR owner_id = @ownerId)
       ORDER BY subject_id, from_ms`,
    ),
  };
}
