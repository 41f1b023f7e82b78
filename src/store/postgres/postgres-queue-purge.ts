// Purges on PostgreSQL (docs/decisions/0015): a purge starts the endpoint's next queue generation
// and counts the one it hides, in one transaction; the hidden rows are deleted later in batches.
import type pg from 'pg';
import { transaction } from './database.js';

/** Hides the endpoint's queued jobs at once; answers how many there were. */
export function purgeQueue(pool: pg.Pool, endpointId: string): Promise<number> {
  return transaction(pool, async (client) => {
    // The row lock on the generation serialises purges of one endpoint.
    const { rows } = await client.query<{ generation: number }>(
      `INSERT INTO queue_generations (endpoint_id, generation) VALUES ($1, 1)
       ON CONFLICT (endpoint_id) DO UPDATE SET generation = queue_generations.generation + 1 RETURNING generation`,
      [endpointId],
    );
    const counted = await client.query<{ n: number }>(
      `SELECT count(*) AS n FROM jobs WHERE endpoint_id = $1 AND queue_generation = $2 AND status = 'IN_QUEUE'`,
      [endpointId, rows[0]!.generation - 1],
    );
    return counted.rows[0]!.n;
  });
}

/** Deletes up to `limit` rows of purged jobs; rows another replica is deleting are skipped. */
export async function deletePurged(pool: pg.Pool, limit: number): Promise<number> {
  const result = await pool.query(
    `DELETE FROM jobs WHERE seq IN (SELECT j.seq FROM queue_generations g
       JOIN jobs j ON j.endpoint_id = g.endpoint_id AND j.queue_generation < g.generation AND j.status = 'IN_QUEUE'
       LIMIT $1 FOR UPDATE OF j SKIP LOCKED)`,
    [limit],
  );
  return result.rowCount ?? 0;
}
