// The Store port on SQLite (better-sqlite3, WAL). Calls are synchronous underneath;
// the async surface is the port's, so a networked adapter can implement the same contract.
import type Database from 'better-sqlite3';
import type { AccountRecord, ApiKeyRecord, EndpointRecord, NetworkVolumeRecord, ReleaseRecord, Store, TemplateRecord } from '../store.js';
import { HistoryReader } from './history-reader.js';
import { GroupCommit, groupMethods } from './group-commit.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { silentLogger, type Logger } from '../../domain/logger.js';
import type { ServerLock } from './server-lock.js';
import { openSqliteDatabase } from './sqlite-file.js';
import { SqliteJobStore } from './sqlite-job-store.js';
import { SqliteRegistryAuthStore } from './sqlite-registry-auths.js';
import { JOB_HISTORY_REDUCERS, SqliteJobHistory } from './sqlite-job-history.js';
import { SqliteSecretStore } from './sqlite-secrets.js';
import { SqlitePodStore } from './sqlite-pods.js';
import { SqliteSshKeyStore } from './sqlite-ssh-keys.js';
import { SqliteWorkerSampleStore } from './sqlite-worker-samples.js';
import { SqliteUsageStore } from './sqlite-usage.js';
import { SqliteWebhookSecretStore } from './sqlite-webhook-secrets.js';
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
import { apiKeysMarkReader } from './api-keys-mark.js';
import { DELETED_ENDPOINT_BATCH } from './sqlite-endpoint-jobs.js';
import { SqliteSubmitKeys } from './sqlite-submit-keys.js';
import { conflictText, endpointInsertConflict, templateConflict, uniquely } from '../shared/conflicts.js';

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly group: GroupCommit;
  private readonly checkpointer: WalCheckpointer | undefined;
  private readonly historyReader: HistoryReader;
  private readonly readApiKeysMark: () => number;
  readonly jobs: SqliteJobStore;
  readonly jobHistory: SqliteJobHistory;
  readonly registryAuths: SqliteRegistryAuthStore;
  readonly secrets: SqliteSecretStore;
  readonly sshKeys: SqliteSshKeyStore;
  readonly pods: SqlitePodStore;
  readonly usage: SqliteUsageStore;
  readonly workerSamples: SqliteWorkerSampleStore;
  readonly submitKeys: SqliteSubmitKeys;
  readonly webhookSecrets: SqliteWebhookSecretStore;

  /** `serverLock`: held by the server that opens the file, released as the store closes (decision 46). */
  constructor(
    fileOrDb: string | Database.Database,
    log: Logger = silentLogger,
    private readonly serverLock?: ServerLock,
  ) {
    this.db = typeof fileOrDb === 'string' ? openSqliteDatabase(fileOrDb, serverLock !== undefined) : fileOrDb;
    this.statements = prepareStatements(this.db);
    this.registryAuths = new SqliteRegistryAuthStore(this.db);
    this.secrets = new SqliteSecretStore(this.db);
    this.sshKeys = new SqliteSshKeyStore(this.db);
    this.pods = new SqlitePodStore(this.db);
    this.usage = new SqliteUsageStore(this.db);
    this.workerSamples = new SqliteWorkerSampleStore(this.db);
    this.submitKeys = new SqliteSubmitKeys(this.db);
    this.webhookSecrets = new SqliteWebhookSecretStore(this.db);
    this.checkpointer = this.db.memory
      ? undefined
      : new WalCheckpointer(this.db, (error) => log.warn({ err: error }, 'checkpoints are back on the store’s own connection'));
    this.group = new GroupCommit(this.db, () => this.checkpointer?.committed());
    this.historyReader = new HistoryReader(
      this.db,
      this.group,
      (error) => log.warn({ err: error }, 'history reads are back on the store’s own connection'),
      JOB_HISTORY_REDUCERS,
    );
    this.jobs = new SqliteJobStore(this.db, this.historyReader, this.submitKeys);
    this.jobHistory = new SqliteJobHistory(this.db, this.historyReader);
    this.readApiKeysMark = apiKeysMarkReader(this.db, () => this.group.failedGroups);
    // Every part that writes or reads the database joins the turn's transaction, so no answer precedes its commit.
    // The job reads of every request join it only when it is open (see GroupCommit.read); reads of a
    // whole history wait for it on their own (see HistoryReader).
    groupMethods(this.jobs, this.group, ['counts'], ['get', 'getState', 'oldestQueuedAt', 'getWorkerCredential']);
    groupMethods(this.jobHistory, this.group, ['list', 'series']);
    // A keyed submit's look-up of its key is a read: it opens no write transaction of its own.
    groupMethods(this.submitKeys, this.group, [], ['find']);
    for (const part of [
      this,
      this.registryAuths,
      this.secrets,
      this.sshKeys,
      this.pods,
      this.usage,
      this.workerSamples,
      this.webhookSecrets,
    ]) {
      groupMethods(part, this.group, ['close']);
    }
  }

  apiKeysMark(): number {
    return this.readApiKeysMark();
  }

  async close(): Promise<void> {
    this.group.flush();
    await this.historyReader.close();
    if (this.checkpointer) await this.checkpointer.close(() => this.db.close());
    else this.db.close();
    this.serverLock?.release();
  }

  async ensureAccount(account: AccountRecord): Promise<{ account: AccountRecord; created: boolean }> {
    if (this.statements.insertAccount.run(account.id, account.name, account.createdAt).changes === 1) return { account, created: true };
    return { account: accountFromRow(this.statements.findAccountByName.get(account.name) as AccountRow), created: false };
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = this.statements.getAccount.get(id) as AccountRow | undefined;
    return row && accountFromRow(row);
  }

  async findAccountByName(name: string): Promise<AccountRecord | undefined> {
    const row = this.statements.findAccountByName.get(name) as AccountRow | undefined;
    return row && accountFromRow(row);
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await uniquely(
      () => this.insertKeyRow(key),
      () => conflictText.apiKey(key.id),
    );
  }

  private insertKeyRow(key: ApiKeyRecord): void {
    this.statements.insertKey.run(
      key.id,
      key.accountId,
      key.name,
      key.secretHash,
      key.permission,
      JSON.stringify(key.endpointIds),
      key.rateLimitExempt ? 1 : 0,
      key.expiresAt,
      key.revokedAt,
      key.createdAt,
    );
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.statements.getKey.get(id) as KeyRow | undefined;
    return row && keyFromRow(row);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (this.statements.listKeys.all() as KeyRow[]).map(keyFromRow);
  }

  async insertFirstApiKey(key: ApiKeyRecord): Promise<boolean> {
    // IMMEDIATE takes the write lock before the check, so another process cannot insert in between.
    const insertIfNone = this.db.transaction(() => {
      if (this.statements.anyKey.get()) return false;
      this.insertKeyRow(key);
      return true;
    });
    return insertIfNone.immediate();
  }

  async revokeApiKey(id: string, at: string): Promise<boolean> {
    return this.statements.revokeKey.run(at, id).changes === 1;
  }

  async insertEndpoint(e: EndpointRecord, release?: ReleaseRecord): Promise<void> {
    const insert = this.db.transaction(() => {
      this.statements.insertEndpoint.run(e.id, e.accountId, JSON.stringify(e.spec), e.version, e.revision, e.createdAt, e.updatedAt);
      if (release) this.insertRelease(release);
    });
    await uniquely(
      () => insert(),
      () => endpointInsertConflict(this, e, release),
    );
  }

  private insertRelease(r: ReleaseRecord): void {
    this.statements.insertRelease.run(r.id, r.endpointId, r.version, r.source, JSON.stringify(r.diff), r.createdBy, r.createdAt);
  }

  async listReleases(endpointId: string): Promise<ReleaseRecord[]> {
    return (this.statements.listReleases.all(endpointId) as ReleaseRow[]).map(releaseFromRow);
  }

  async getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined> {
    const row = this.statements.getEndpoint.get(id, accountId) as EndpointRow | undefined;
    return row && endpointFromRow(row);
  }

  async listAllEndpoints(): Promise<EndpointRecord[]> {
    return (this.statements.listAllEndpoints.all() as EndpointRow[]).map(endpointFromRow);
  }

  async findEndpoint(id: string): Promise<EndpointRecord | undefined> {
    const row = this.statements.findEndpoint.get(id) as EndpointRow | undefined;
    return row && endpointFromRow(row);
  }

  async listEndpoints(accountId: string): Promise<EndpointRecord[]> {
    return (this.statements.listEndpoints.all(accountId) as EndpointRow[]).map(endpointFromRow);
  }

  async updateEndpoint(e: EndpointRecord, expectedRevision: number, release?: ReleaseRecord): Promise<boolean> {
    const update = this.db.transaction(() => {
      const result = this.statements.updateEndpoint.run(
        JSON.stringify(e.spec),
        e.version,
        e.revision,
        e.updatedAt,
        e.id,
        e.accountId,
        expectedRevision,
      );
      if (result.changes !== 1) return false;
      if (release) this.insertRelease(release);
      return true;
    });
    // Only the release can clash: the endpoint row is updated in place.
    return uniquely(
      () => update(),
      () => (release ? conflictText.release(release) : conflictText.endpoint(e.id)),
    );
  }

  /**
   * Deleting an endpoint drops its queue: queued and running jobs go with it. The endpoint goes in
   * one transaction that also hides its jobs; their rows follow in batches, each committed on its
   * own, and the call answers once the last is gone (SqliteEndpointJobs); its submit keys after them.
   */
  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      const deleted = this.statements.deleteEndpoint.run(id, accountId).changes === 1;
      if (deleted) {
        this.jobs.hideJobsOfEndpoint(id);
        this.statements.deleteReleases.run(id);
      }
      return deleted;
    })();
    while (deleted && (await this.jobs.deleteJobsOfDeletedEndpoint(id, DELETED_ENDPOINT_BATCH)) > 0) {
      // Each batch is a grouped call of its own: other requests are served between them.
    }
    while (deleted && (await this.submitKeys.deleteOfEndpoint(id, DELETED_ENDPOINT_BATCH)) > 0) {
      // As the jobs: the keys' ids name jobs that are gone.
    }
    return deleted;
  }

  async insertTemplate(t: TemplateRecord): Promise<void> {
    const insert = () =>
      this.statements.insertTemplate.run(
        t.id,
        t.accountId,
        t.spec.name,
        t.spec.public ? 1 : 0,
        JSON.stringify(t.spec),
        t.createdAt,
        t.updatedAt,
      );
    await uniquely(insert, () => templateConflict(this, t));
  }

  async getTemplate(id: string): Promise<TemplateRecord | undefined> {
    const row = this.statements.getTemplate.get(id) as TemplateRow | undefined;
    return row && templateFromRow(row);
  }

  async listTemplates(accountId: string): Promise<TemplateRecord[]> {
    return (this.statements.listTemplates.all(accountId) as TemplateRow[]).map(templateFromRow);
  }

  async listSharedTemplates(limit: number): Promise<TemplateRecord[]> {
    return (this.statements.listSharedTemplates.all(limit) as TemplateRow[]).map(templateFromRow);
  }

  async updateTemplate(t: TemplateRecord): Promise<void> {
    const update = () => this.statements.updateTemplate.run(t.spec.name, t.spec.public ? 1 : 0, JSON.stringify(t.spec), t.updatedAt, t.id);
    await uniquely(update, () => templateConflict(this, t));
  }

  async deleteTemplate(accountId: string, id: string): Promise<boolean> {
    return this.statements.deleteTemplate.run(id, accountId).changes === 1;
  }

  async templateNameTaken(accountId: string, name: string, exceptId = ''): Promise<boolean> {
    return this.statements.templateNameTaken.get(accountId, name, exceptId) !== undefined;
  }

  async insertNetworkVolume(v: NetworkVolumeRecord): Promise<void> {
    const { spec } = v;
    const insert = () =>
      this.statements.insertVolume.run(v.id, v.accountId, spec.name, spec.size, spec.dataCenterId, spec.type, v.createdAt, v.updatedAt);
    await uniquely(insert, () => conflictText.networkVolume(v.id));
  }

  async getNetworkVolume(accountId: string, id: string): Promise<NetworkVolumeRecord | undefined> {
    const row = this.statements.getVolume.get(id, accountId) as NetworkVolumeRow | undefined;
    return row && networkVolumeFromRow(row);
  }

  async listNetworkVolumes(accountId: string): Promise<NetworkVolumeRecord[]> {
    return (this.statements.listVolumes.all(accountId) as NetworkVolumeRow[]).map(networkVolumeFromRow);
  }

  async listAllNetworkVolumes(): Promise<NetworkVolumeRecord[]> {
    return (this.statements.listAllVolumes.all() as NetworkVolumeRow[]).map(networkVolumeFromRow);
  }

  async updateNetworkVolume(v: NetworkVolumeRecord): Promise<boolean> {
    return this.statements.updateVolume.run(v.spec.name, v.spec.size, v.updatedAt, v.id, v.accountId, v.spec.size).changes === 1;
  }

  async deleteNetworkVolume(accountId: string, id: string): Promise<boolean> {
    return this.statements.deleteVolume.run(id, accountId).changes === 1;
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insertAccount: db.prepare('INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING'),
    getAccount: db.prepare('SELECT * FROM accounts WHERE id = ?'),
    findAccountByName: db.prepare('SELECT * FROM accounts WHERE name = ?'),
    insertKey: db.prepare(`INSERT INTO api_keys (id, account_id, name, secret_hash, permission, endpoint_ids,
      rate_limit_exempt, expires_at, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    getKey: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    anyKey: db.prepare('SELECT 1 FROM api_keys LIMIT 1'),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?'),
    insertEndpoint: db.prepare(`INSERT INTO endpoints (id, account_id, spec, version, revision, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    getEndpoint: db.prepare('SELECT * FROM endpoints WHERE id = ? AND account_id = ?'),
    findEndpoint: db.prepare('SELECT * FROM endpoints WHERE id = ?'),
    listAllEndpoints: db.prepare('SELECT * FROM endpoints ORDER BY created_at, id'),
    listEndpoints: db.prepare('SELECT * FROM endpoints WHERE account_id = ? ORDER BY created_at, id'),
    updateEndpoint: db.prepare(`UPDATE endpoints SET spec = ?, version = ?, revision = ?, updated_at = ?
      WHERE id = ? AND account_id = ? AND revision = ?`),
    deleteEndpoint: db.prepare('DELETE FROM endpoints WHERE id = ? AND account_id = ?'),
    insertRelease: db.prepare(`INSERT INTO releases (id, endpoint_id, version, source, diff, created_by, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    listReleases: db.prepare('SELECT * FROM releases WHERE endpoint_id = ? ORDER BY version DESC'),
    deleteReleases: db.prepare('DELETE FROM releases WHERE endpoint_id = ?'),
    insertTemplate: db.prepare(`INSERT INTO templates (id, account_id, name, is_public, spec, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    getTemplate: db.prepare('SELECT * FROM templates WHERE id = ?'),
    listTemplates: db.prepare('SELECT * FROM templates WHERE account_id = ? ORDER BY created_at, id'),
    listSharedTemplates: db.prepare(
      'SELECT * FROM templates WHERE is_public = 1 AND account_id IS NOT NULL ORDER BY created_at, id LIMIT ?',
    ),
    updateTemplate: db.prepare('UPDATE templates SET name = ?, is_public = ?, spec = ?, updated_at = ? WHERE id = ?'),
    deleteTemplate: db.prepare('DELETE FROM templates WHERE id = ? AND account_id = ?'),
    templateNameTaken: db.prepare('SELECT 1 FROM templates WHERE account_id = ? AND name = ? AND id <> ?'),
    insertVolume: db.prepare(`INSERT INTO network_volumes (id, account_id, name, size_gb, data_center_id, type, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    getVolume: db.prepare('SELECT * FROM network_volumes WHERE id = ? AND account_id = ?'),
    listVolumes: db.prepare('SELECT * FROM network_volumes WHERE account_id = ? ORDER BY created_at, id'),
    listAllVolumes: db.prepare('SELECT * FROM network_volumes ORDER BY created_at, id'),
    updateVolume: db.prepare(
      'UPDATE network_volumes SET name = ?, size_gb = ?, updated_at = ? WHERE id = ? AND account_id = ? AND size_gb <= ?',
    ),
    deleteVolume: db.prepare('DELETE FROM network_volumes WHERE id = ? AND account_id = ?'),
  };
}
