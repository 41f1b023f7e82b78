// Purges by queue generation (docs/decisions/0015): the SQL both stores use to tell a job of its
// endpoint's current queue from one a purge has hidden. Plain SQL that SQLite and PostgreSQL read alike.

/** The current queue generation (0 before the endpoint's first purge) of the endpoint given by `endpoint`. */
export function generationOf(endpoint: string): string {
  return `(SELECT coalesce(max(g.generation), 0) FROM queue_generations g WHERE g.endpoint_id = ${endpoint})`;
}

/** The current queue generation of the row's own endpoint, in a statement over `jobs`. */
export const ROW_GENERATION = generationOf('jobs.endpoint_id');

/** A row a purge has hidden: queued in an earlier generation of its endpoint. It is never taken, shown or counted. */
export function purgedRow(generation = ROW_GENERATION): string {
  return `(jobs.status = 'IN_QUEUE' AND jobs.queue_generation < ${generation})`;
}
