// The Store port on PostgreSQL (pg), for several replicas sharing one database.
import type pg from 'pg';
import type { AccountRecord, ApiKeyRecord, EndpointRecord, NetworkVolumeRecord, ReleaseRecord, Store, TemplateRecord } from '../store.js';
import {
  accountFromRow,
  endpointFromRow,
  keyFromRow,
  networkVolumeFromRow,
  releaseFromRow,
  templateFromRow,
  type AccountRow,
  type EndpointRow,
  type KeyRow,
  type NetworkVolumeRow,
  type ReleaseRow,
  type TemplateRow,
} from '../rows.js';
import { conflictText, endpointInsertConflict, templateConflict, uniquely } from '../shared/conflicts.js';
import { createPool, transaction, type PoolOptions, type Queryable } from './database.js';
import { migratePostgres } from './migrate.js';
import { silentLogger, type Logger } from '../../domain/logger.js';
import { deleteJobsOfEndpoint, PostgresJobStore } from './postgres-job-store.js';
import { PostgresRegistryAuthStore } from './postgres-registry-auths.js';
import { PostgresJobHistory } from './postgres-job-history.js';
import { PostgresSecretStore } from './postgres-secrets.js';
import { PostgresPodStore } from './postgres-pods.js';
import { PostgresSshKeyStore } from './postgres-ssh-keys.js';
import { PostgresWorkerSampleStore } from './postgres-worker-samples.js';
import { PostgresUsageStore } from './postgres-usage.js';
import { PostgresWebhookSecretStore } from './postgres-webhook-secrets.js';
import { PostgresSubmitKeys } from './postgres-submit-keys.js';
import { ShortLivedCopies } from '../../domain/short-lived-copies.js';
import { EVENT_CHANNEL, keyChangedPayload, NotificationCarrier } from './notifications.js';

/**
 * A replica's connections: half for the batched hot statements (at most one of each kind is at
 * the database at once: one take per endpoint, one count per account), the rest for everything
 * else; one each at least.
 */
function splitPoolSize(max: number): { batched: number; rest: number } {
  const batched = Math.max(1, Math.floor(max / 2));
  return { batched, rest: Math.max(1, max - batched) };
}

/** Names the lock that serialises creating the first API key among advisory locks. */
const FIRST_KEY_LOCK = 7_316_202_611;

export class PostgresStore implements Store {
  readonly jobs: PostgresJobStore;
  readonly jobHistory: PostgresJobHistory;
  readonly registryAuths: PostgresRegistryAuthStore;
  readonly secrets: PostgresSecretStore;
  readonly sshKeys: PostgresSshKeyStore;
  readonly pods: PostgresPodStore;
  readonly usage: PostgresUsageStore;
  readonly workerSamples: PostgresWorkerSampleStore;
  readonly submitKeys: PostgresSubmitKeys;
  readonly webhookSecrets: PostgresWebhookSecretStore;
  /**
   * API keys are read on every request; found ones are kept a second. A revocation drops the copy at
   * once on the replica that made it, and on every other one through the notification the revoking
   * statement sends when it commits. The time bound covers a notification missed while a replica's
   * listening connection was down. Unknown ids are not kept: a key made on another replica works at once.
   */
  private readonly keys = new ShortLivedCopies<ApiKeyRecord | undefined>({
    freshForMs: 1000,
    maxEntries: 10_000,
    keep: (key) => key !== undefined,
  });
  /** Where the hot job statements find the notifications they carry for the event bus. */
  readonly notifications = new NotificationCarrier();

  private constructor(
    readonly pool: pg.Pool,
    /** The sessions of the batched hot statements (a job's submit, take, read and complete; rate-limit counts): they keep their plans. */
    readonly batchPool: pg.Pool,
    readonly options: PoolOptions,
  ) {
    this.submitKeys = new PostgresSubmitKeys(pool);
    this.jobs = new PostgresJobStore(pool, batchPool, this.notifications, this.submitKeys);
    this.jobHistory = new PostgresJobHistory(pool);
    this.registryAuths = new PostgresRegistryAuthStore(pool);
    this.secrets = new PostgresSecretStore(pool);
    this.sshKeys = new PostgresSshKeyStore(pool);
    this.pods = new PostgresPodStore(pool);
    this.usage = new PostgresUsageStore(pool);
    this.workerSamples = new PostgresWorkerSampleStore(pool);
    this.webhookSecrets = new PostgresWebhookSecretStore(pool);
  }

  /** Connects and brings the schema up to date (safe when several replicas start together). */
  static async open(options: PoolOptions, log: Logger = silentLogger): Promise<PostgresStore> {
    const sizes = splitPoolSize(options.max);
    const pool = createPool({ ...options, max: sizes.rest }, log);
    try {
      await migratePostgres(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    const batchPool = createPool({ ...options, max: sizes.batched, genericPlans: true }, log);
    return new PostgresStore(pool, batchPool, options);
  }

  /** Other replicas write without telling this one: nothing read may be kept without asking the database. */
  apiKeysMark(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.batchPool.end()]);
  }

  private async one<T>(sql: string, params: unknown[] = [], db: Queryable = this.pool): Promise<T | undefined> {
    return (await db.query(sql, params)).rows[0] as T | undefined;
  }

  private async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  async ensureAccount(a: AccountRecord): Promise<{ account: AccountRecord; created: boolean }> {
    const inserted = await this.pool.query(
      'INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [a.id, a.name, a.createdAt],
    );
    if (inserted.rowCount === 1) return { account: a, created: true };
    const existing = await this.findAccountByName(a.name);
    if (!existing) throw new Error(`account ${a.name} neither inserted nor found`);
    return { account: existing, created: false };
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = await this.one<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
    return row && accountFromRow(row);
  }

  async findAccountByName(name: string): Promise<AccountRecord | undefined> {
    const row = await this.one<AccountRow>('SELECT * FROM accounts WHERE name = $1', [name]);
    return row && accountFromRow(row);
  }

  async insertApiKey(k: ApiKeyRecord): Promise<void> {
    await uniquely(
      () => insertKeyRow(this.pool, k),
      () => conflictText.apiKey(k.id),
    );
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.get(id, async () => {
      const { rows } = await this.pool.query<KeyRow>({
        name: 'gantry_api_key',
        text: 'SELECT * FROM api_keys WHERE id = $1',
        values: [id],
      });
      return rows[0] && keyFromRow(rows[0]);
    });
  }

  /** Drops the cached copy of a key another replica changed. */
  forgetApiKey(id: string): void {
    this.keys.forget(id);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.all<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).map(keyFromRow);
  }

  insertFirstApiKey(k: ApiKeyRecord): Promise<boolean> {
    // Under READ COMMITTED two "insert if empty" statements can both see no key; the lock orders them.
    return transaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [FIRST_KEY_LOCK]);
      if (await this.one('SELECT 1 FROM api_keys LIMIT 1', [], client)) return false;
      await insertKeyRow(client, k);
      return true;
    });
  }

  async revokeApiKey(id: string, at: string): Promise<boolean> {
    // The notification goes out when, and only if, the revocation commits: every replica drops its copy.
    const result = await this.pool.query(
      `WITH revoked AS (UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING id)
       SELECT pg_notify($3, $4) FROM revoked`,
      [at, id, EVENT_CHANNEL, keyChangedPayload(id)],
    );
    this.keys.forget(id);
    return result.rowCount === 1;
  }

  async insertEndpoint(e: EndpointRecord, release?: ReleaseRecord): Promise<void> {
    const insert = () =>
      transaction(this.pool, async (client) => {
        await client.query(
          `INSERT INTO endpoints (id, account_id, spec, version, revision, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [e.id, e.accountId, JSON.stringify(e.spec), e.version, e.revision, e.createdAt, e.updatedAt],
        );
        if (release) await insertRelease(client, release);
      });
    await uniquely(insert, () => endpointInsertConflict(this, e, release));
  }

  async getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined> {
    const row = await this.one<EndpointRow>('SELECT * FROM endpoints WHERE id = $1 AND account_id = $2', [id, accountId]);
    return row && endpointFromRow(row);
  }

  async listEndpoints(accountId: string): Promise<EndpointRecord[]> {
    return (await this.all<EndpointRow>('SELECT * FROM endpoints WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(
      endpointFromRow,
    );
  }

  async listAllEndpoints(): Promise<EndpointRecord[]> {
    return (await this.all<EndpointRow>('SELECT * FROM endpoints ORDER BY created_at, id')).map(endpointFromRow);
  }

  async findEndpoint(id: string): Promise<EndpointRecord | undefined> {
    const row = await this.one<EndpointRow>('SELECT * FROM endpoints WHERE id = $1', [id]);
    return row && endpointFromRow(row);
  }

  async updateEndpoint(e: EndpointRecord, expectedRevision: number, release?: ReleaseRecord): Promise<boolean> {
    const update = () =>
      transaction(this.pool, async (client) => {
        const result = await client.query(
          `UPDATE endpoints SET spec = $1, version = $2, revision = $3, updated_at = $4 WHERE id = $5 AND account_id = $6 AND revision = $7`,
          [JSON.stringify(e.spec), e.version, e.revision, e.updatedAt, e.id, e.accountId, expectedRevision],
        );
        if (result.rowCount !== 1) return false;
        if (release) await insertRelease(client, release);
        return true;
      });
    // Only the release can clash: the endpoint row is updated in place.
    return uniquely(update, () => (release ? conflictText.release(release) : conflictText.endpoint(e.id)));
  }

  async listReleases(endpointId: string): Promise<ReleaseRecord[]> {
    return (await this.all<ReleaseRow>('SELECT * FROM releases WHERE endpoint_id = $1 ORDER BY version DESC', [endpointId])).map(
      releaseFromRow,
    );
  }

  /** Deleting an endpoint drops its queue: queued and running jobs go with it, and its submit keys. */
  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const deleted = (await client.query('DELETE FROM endpoints WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount === 1;
      if (deleted) {
        await deleteJobsOfEndpoint(client, id);
        await client.query('DELETE FROM releases WHERE endpoint_id = $1', [id]);
        await client.query('DELETE FROM submit_keys WHERE endpoint_id = $1', [id]);
      }
      return deleted;
    });
  }

  async insertTemplate(t: TemplateRecord): Promise<void> {
    const insert = () =>
      this.pool.query(
        `INSERT INTO templates (id, account_id, name, is_public, spec, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [t.id, t.accountId, t.spec.name, t.spec.public, JSON.stringify(t.spec), t.createdAt, t.updatedAt],
      );
    await uniquely(insert, () => templateConflict(this, t));
  }

  async getTemplate(id: string): Promise<TemplateRecord | undefined> {
    const row = await this.one<TemplateRow>('SELECT * FROM templates WHERE id = $1', [id]);
    return row && templateFromRow(row);
  }

  async listTemplates(accountId: string): Promise<TemplateRecord[]> {
    return (await this.all<TemplateRow>('SELECT * FROM templates WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(
      templateFromRow,
    );
  }

  async listSharedTemplates(limit: number): Promise<TemplateRecord[]> {
    const rows = await this.all<TemplateRow>(
      'SELECT * FROM templates WHERE is_public AND account_id IS NOT NULL ORDER BY created_at, id LIMIT $1',
      [limit],
    );
    return rows.map(templateFromRow);
  }

  async updateTemplate(t: TemplateRecord): Promise<void> {
    const update = () =>
      this.pool.query('UPDATE templates SET name = $1, is_public = $2, spec = $3, updated_at = $4 WHERE id = $5', [
        t.spec.name,
        t.spec.public,
        JSON.stringify(t.spec),
        t.updatedAt,
        t.id,
      ]);
    await uniquely(update, () => templateConflict(this, t));
  }

  async deleteTemplate(accountId: string, id: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM templates WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount === 1;
  }

  async templateNameTaken(accountId: string, name: string, exceptId = ''): Promise<boolean> {
    return (
      (await this.one('SELECT 1 FROM templates WHERE account_id = $1 AND name = $2 AND id <> $3', [accountId, name, exceptId])) !==
      undefined
    );
  }

  async insertNetworkVolume(v: NetworkVolumeRecord): Promise<void> {
    const { spec } = v;
    const insert = () =>
      this.pool.query(
        `INSERT INTO network_volumes (id, account_id, name, size_gb, data_center_id, type, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [v.id, v.accountId, spec.name, spec.size, spec.dataCenterId, spec.type, v.createdAt, v.updatedAt],
      );
    await uniquely(insert, () => conflictText.networkVolume(v.id));
  }

  async getNetworkVolume(accountId: string, id: string): Promise<NetworkVolumeRecord | undefined> {
    const row = await this.one<NetworkVolumeRow>('SELECT * FROM network_volumes WHERE id = $1 AND account_id = $2', [id, accountId]);
    return row && networkVolumeFromRow(row);
  }

  async listNetworkVolumes(accountId: string): Promise<NetworkVolumeRecord[]> {
    const rows = await this.all<NetworkVolumeRow>('SELECT * FROM network_volumes WHERE account_id = $1 ORDER BY created_at, id', [
      accountId,
    ]);
    return rows.map(networkVolumeFromRow);
  }

  async listAllNetworkVolumes(): Promise<NetworkVolumeRecord[]> {
    return (await this.all<NetworkVolumeRow>('SELECT * FROM network_volumes ORDER BY created_at, id')).map(networkVolumeFromRow);
  }

  async updateNetworkVolume(v: NetworkVolumeRecord): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE network_volumes SET name = $1, size_gb = $2, updated_at = $3 WHERE id = $4 AND account_id = $5 AND size_gb <= $2',
      [v.spec.name, v.spec.size, v.updatedAt, v.id, v.accountId],
    );
    return result.rowCount === 1;
  }

  async deleteNetworkVolume(accountId: string, id: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM network_volumes WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount === 1;
  }
}

async function insertRelease(client: Queryable, r: ReleaseRecord): Promise<void> {
  await client.query(
    `INSERT INTO releases (id, endpoint_id, version, source, diff, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [r.id, r.endpointId, r.version, r.source, JSON.stringify(r.diff), r.createdBy, r.createdAt],
  );
}

async function insertKeyRow(db: Queryable, k: ApiKeyRecord): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, account_id, name, secret_hash, permission, endpoint_ids, rate_limit_exempt, expires_at, revoked_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      k.id,
      k.accountId,
      k.name,
      k.secretHash,
      k.permission,
      JSON.stringify(k.endpointIds),
      k.rateLimitExempt,
      k.expiresAt,
      k.revokedAt,
      k.createdAt,
    ],
  );
}
