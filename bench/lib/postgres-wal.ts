// How much write-ahead log PostgreSQL writes while something runs: a cost per job that does not
// depend on how busy the machine is (unlike CPU time), so it compares builds across noisy runs.
import pg from 'pg';

/** Runs `work` and answers the WAL bytes the server wrote meanwhile (every database of it counts). */
export async function walBytesDuring<T>(url: string, work: () => Promise<T>): Promise<{ result: T; walBytes: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const lsn = async () => (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    const before = await lsn();
    const result = await work();
    const after = await lsn();
    const { rows } = await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint AS bytes', [
      after,
      before,
    ]);
    return { result, walBytes: Number(rows[0]!.bytes) };
  } finally {
    await client.end();
  }
}
