// Counts the statements a benchmark server sends to PostgreSQL: every pg client query is one
// round trip (the driver waits for each answer before sending the next). The benchmark asks over
// the IPC channel; with BENCH_QUERY_LOG set the answer also names the most frequent statements.
import pg from 'pg';

/** Starts counting; answers a reader of the count so far. */
export function countQueries(): () => number {
  let total = 0;
  const byText = new Map<string, number>();
  const msByText = new Map<string, number>();
  const detail = Boolean(process.env.BENCH_QUERY_LOG);
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    total++;
    if (detail) {
      const first = args[0] as string | { text?: string; name?: string };
      const text = (typeof first === 'string' ? first : (first.name ?? first.text ?? '?')).replace(/\s+/g, ' ').slice(0, 90);
      byText.set(text, (byText.get(text) ?? 0) + 1);
      const started = performance.now();
      const took = () => msByText.set(text, (msByText.get(text) ?? 0) + performance.now() - started);
      // pg-pool passes a callback; a direct caller gets a promise.
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (...answer: unknown[]) => {
          took();
          return (callback as (...a: unknown[]) => unknown)(...answer);
        };
        return query.apply(this, args);
      }
      const result = query.apply(this, args);
      if (result instanceof Promise) void result.finally(took).catch(() => undefined);
      return result;
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  process.on('message', (message) => {
    if (message !== 'queries') return;
    const top = [...byText]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([text, n]) => [text, n, `${((msByText.get(text) ?? 0) / n).toFixed(2)} ms each`]);
    process.send?.({ queries: total, top });
  });
  return () => total;
}
