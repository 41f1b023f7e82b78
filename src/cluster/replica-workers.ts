// Every replica's view of its own workers, shared through the database: each replica writes its
// rows on a heartbeat and keeps the other replicas' fresh rows in memory, so listing and counting
// an endpoint's workers answers the same on every replica without a query per request.
import type pg from 'pg';
import { DATABASE_NOW_MS, transaction } from '../store/postgres/database.js';
import type { WorkerRow } from '../domain/workers.js';
import type { LocalWorkerRow, PeerWorker } from '../domain/workers.js';

/**
 * A replica not seen for this long no longer counts for the event bus, which sends nothing while
 * none counts. Long on purpose: counting a live replica out (a crash's row, or clocks apart by more
 * than the heartbeat's freshness) would cost it its notifications; counting a gone one costs only
 * notifications nobody hears. Heartbeats are kept by the database's clock; older Gantry replicas
 * wrote their own.
 */
const OTHERS_SEEN_WITHIN_MS = 60_000;

export class ReplicaWorkers {
  private peers = new Map<string, PeerWorker[]>();
  /** The current leader's id and address, as of the last heartbeat. */
  leader: { id: string; url: string } | undefined;
  /** How many other replicas were seen within OTHERS_SEEN_WITHIN_MS at the last heartbeat (undefined before the first). */
  otherReplicas: number | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly replicaId: string,
    /** Read on every beat: with --port 0 the address is known only once the server listens. */
    private readonly replicaUrl: () => string,
    /** Rows not refreshed for this long belong to a replica that is gone. */
    private readonly freshForMs: number,
    /** The schema version this replica's Gantry knows: a migration older replicas cannot run beside waits for it. */
    private readonly schemaVersion: number,
  ) {}

  /**
   * Publishes this replica's rows and reads everyone else's. Every time here is the database's
   * clock: whoever judges whether a replica or its workers are live (doctor, a migration, the other
   * replicas) reads that one clock, whatever the machines' own clocks say.
   */
  async beat(local: LocalWorkerRow[]): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO replicas (id, url, started_at, seen_at, schema_version) VALUES ($1, $2, ${DATABASE_NOW_MS}, ${DATABASE_NOW_MS}, $3)
         ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, seen_at = EXCLUDED.seen_at`,
        [this.replicaId, this.replicaUrl(), this.schemaVersion],
      );
      await client.query(`DELETE FROM replica_workers WHERE replica_id = $1 OR updated_at < ${DATABASE_NOW_MS} - $2`, [
        this.replicaId,
        20 * this.freshForMs,
      ]);
      if (local.length > 0) {
        await client.query(
          `INSERT INTO replica_workers (replica_id, worker_id, endpoint_id, view, updated_at)
           SELECT $1, w, e, v, ${DATABASE_NOW_MS} FROM unnest($2::text[], $3::text[], $4::text[]) AS t(w, e, v)`,
          [this.replicaId, local.map((l) => l.row.id), local.map((l) => l.endpointId), local.map((l) => JSON.stringify(l.row))],
        );
      }
    });
    const { rows } = await this.pool.query<{ endpoint_id: string; view: string; url: string; updated_at: string }>(
      `SELECT w.endpoint_id, w.view, r.url, w.updated_at FROM replica_workers w JOIN replicas r ON r.id = w.replica_id
       WHERE w.replica_id <> $1 AND w.updated_at > ${DATABASE_NOW_MS} - $2`,
      [this.replicaId, this.freshForMs],
    );
    const peers = new Map<string, PeerWorker[]>();
    for (const row of rows) {
      const list = peers.get(row.endpoint_id) ?? [];
      list.push({ ...(JSON.parse(row.view) as WorkerRow), replicaUrl: row.url, measuredAtMs: Number(row.updated_at) });
      peers.set(row.endpoint_id, list);
    }
    this.peers = peers;
    const leader = await this.pool.query<{ id: string; url: string }>(
      `SELECT r.id, r.url FROM leases l JOIN replicas r ON r.id = l.holder WHERE l.name = 'leader'`,
    );
    this.leader = leader.rows[0];
    const others = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM replicas WHERE id <> $1 AND seen_at > ${DATABASE_NOW_MS} - $2`,
      [this.replicaId, OTHERS_SEEN_WITHIN_MS],
    );
    this.otherReplicas = others.rows[0]!.n;
  }

  of(endpointId: string): PeerWorker[] {
    return this.peers.get(endpointId) ?? [];
  }

  find(endpointId: string, workerId: string): PeerWorker | undefined {
    return this.of(endpointId).find((w) => w.id === workerId);
  }

  /** Leaves the shared view at once on a graceful shutdown. */
  async close(): Promise<void> {
    await this.pool.query('DELETE FROM replica_workers WHERE replica_id = $1', [this.replicaId]).catch(() => undefined);
    await this.pool.query('DELETE FROM replicas WHERE id = $1', [this.replicaId]).catch(() => undefined);
  }
}
