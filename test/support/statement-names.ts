// What a store sends to PostgreSQL: a test of what a request costs the database counts the
// prepared statements, and a test of what a read carries looks at the columns that came back.
import type pg from 'pg';

/**
 * Runs `work` with every `query` call on `targets` (pools, clients, or their prototypes to catch
 * every one) shown to `observe`, with its arguments and what it returned.
 */
export async function watchQueries(
  targets: object[],
  observe: (args: unknown[], answer: unknown) => void,
  work: () => Promise<unknown>,
): Promise<void> {
  const restore = targets.map((target) => {
    const patched = target as { query: (...args: unknown[]) => unknown };
    const query = patched.query;
    patched.query = function (this: unknown, ...args: unknown[]) {
      const answer = query.apply(this, args);
      observe(args, answer);
      return answer;
    };
    return () => (patched.query = query);
  });
  try {
    await work();
  } finally {
    for (const undo of restore) undo();
  }
}

/** Runs `work` and answers the names of the prepared statements `pools` sent meanwhile. */
export async function statementNames(pools: pg.Pool[], work: () => Promise<unknown>): Promise<string[]> {
  const names: string[] = [];
  await watchQueries(
    pools,
    (args) => {
      const { name } = args[0] as { name?: string };
      if (name) names.push(name);
    },
    work,
  );
  return names;
}
