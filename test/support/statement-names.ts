// Which prepared statements a store sent: a test of what a request costs the database counts them.
import type pg from 'pg';

/** Runs `work` and answers the names of the prepared statements `pools` sent meanwhile. */
export async function statementNames(pools: pg.Pool[], work: () => Promise<unknown>): Promise<string[]> {
  const names: string[] = [];
  const restore = pools.map((pool) => {
    const patched = pool as unknown as { query: (...args: unknown[]) => unknown };
    const query = patched.query;
    patched.query = (...args) => {
      const config = args[0] as { name?: string };
      if (config.name) names.push(config.name);
      return query.apply(pool, args);
    };
    return () => (patched.query = query);
  });
  try {
    await work();
  } finally {
    for (const undo of restore) undo();
  }
  return names;
}
