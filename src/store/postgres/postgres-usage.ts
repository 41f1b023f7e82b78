// Usage intervals on PostgreSQL. Replicas may append for one subject at once (a leader that has
// not yet noticed it lost the lease): a transaction-scoped advisory lock per subject makes the
// overlap check and the write of each append run one after the other.
import type pg from 'pg';
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
import { transaction } from './database.js';

/** CONTINUES with numbered parameters ($2 on; $1 is the new end). */
const CONTINUES_PG = CONTINUES.split('?').reduce((sql, part, i) => (i === 0 ? part : `${sql}$${i + 1}${part}`), '');

export class PostgresUsageStore implements UsageStore {
  constructor(private readonly pool: pg.Pool) {}

  append(intervals: readonly UsageInterval[]): Promise<number> {
    if (intervals.length === 0) return Promise.resolve(0);
    return transaction(this.pool, async (client) => {
      // Locks in one order, so two appends of overlapping subjects cannot deadlock.
      const subjects = [...new Set(intervals.map((i) => i.subjectId))].sort();
      for (const subject of subjects) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`usage:${subject}`]);
      let recorded = 0;
      for (const interval of intervals) {
        const overlap = await client.query('SELECT 1 FROM usage_intervals WHERE subject_id = $1 AND from_ms < $2 AND to_ms > $3', [
          interval.subjectId,
          interval.toMs,
          interval.fromMs,
        ]);
        if ((overlap.rowCount ?? 0) > 0) continue;
        const extended = await client.query(`UPDATE usage_intervals SET to_ms = $1 WHERE ${CONTINUES_PG}`, [
          interval.toMs,
          ...continuation(interval),
        ]);
        if ((extended.rowCount ?? 0) > 0) {
          recorded++;
          continue;
        }
        const inserted = await client.query(
          `INSERT INTO usage_intervals (${USAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
          usageValues(interval),
        );
        recorded += inserted.rowCount ?? 0;
      }
      return recorded;
    });
  }

  async lastEnds(subjectIds: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ subject_id: string; last_end: string }>(
      'SELECT subject_id, MAX(to_ms) AS last_end FROM usage_intervals WHERE subject_id = ANY($1::text[]) GROUP BY subject_id',
      [subjectIds],
    );
    return new Map(rows.map((row) => [row.subject_id, Number(row.last_end)]));
  }

  async list(query: UsageQuery): Promise<UsageInterval[]> {
    const { rows } = await this.pool.query<UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM usage_intervals
       WHERE account_id = $1 AND to_ms > $2 AND from_ms < $3
         AND ($4::text IS NULL OR family = $4) AND ($5::text IS NULL OR owner_id = $5)
       ORDER BY subject_id, from_ms`,
      [query.accountId, query.fromMs, query.toMs, query.family ?? null, query.ownerId ?? null],
    );
    return rows.map(usageFromRow);
  }
}
