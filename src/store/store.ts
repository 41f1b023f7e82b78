// The Store port: every durable operation Gantry performs, in high-level terms.
// Adapters (SQLite today, PostgreSQL next) implement it; callers never see SQL.
import type { EndpointSpec, TemplateSpec } from '../domain/endpoint-spec.js';
import type { NetworkVolumeSpec } from '../domain/network-volume.js';
import type { JobStore } from './job-store.js';
import type { RegistryAuthStore } from './registry-auth-store.js';
import type { JobHistoryStore } from './job-history.js';
import type { SecretStore } from './secret-store.js';
import type { SshKeyStore } from './ssh-key-store.js';
import type { PodStore } from './pod-store.js';
import type { UsageStore } from './usage-store.js';
import type { WebhookSecretStore } from './webhook-secret-store.js';
import type { WorkerSampleStore } from './worker-sample-store.js';
import type { SubmitKeyStore } from './submit-key-store.js';

export type KeyPermission = 'full' | 'read' | 'endpoints';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** sha256 of the secret part, hex; the secret itself is never stored. */
  secretHash: string;
  permission: KeyPermission;
  /** For `endpoints` keys: the endpoints whose queues the key may use. */
  endpointIds: string[];
  rateLimitExempt: boolean;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export interface EndpointRecord {
  id: string;
  accountId: string;
  spec: EndpointSpec;
  /** Configuration version: grows when what workers run changes. */
  version: number;
  /** Row revision: grows on every write, for optimistic concurrency. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface ReleaseDiffEntry {
  field: string;
  old: unknown;
  new: unknown;
}

export interface ReleaseRecord {
  id: string;
  endpointId: string;
  version: number;
  source: 'MANUAL';
  diff: ReleaseDiffEntry[];
  /** The account that made the change. */
  createdBy: string | null;
  createdAt: string;
}

export interface TemplateRecord {
  id: string;
  /** null for the built-in public catalog templates. */
  accountId: string | null;
  spec: TemplateSpec;
  createdAt: string;
  updatedAt: string;
}

export interface NetworkVolumeRecord {
  id: string;
  accountId: string;
  spec: NetworkVolumeSpec;
  createdAt: string;
  updatedAt: string;
}

export interface Store {
  /** Jobs, their streams and worker credentials. */
  readonly jobs: JobStore;
  /** An endpoint's recent jobs, read back for people (lists and charts). */
  readonly jobHistory: JobHistoryStore;
  /** Container registry credentials, kept sealed. */
  readonly registryAuths: RegistryAuthStore;
  /** Per-account secrets env values reference, kept sealed. */
  readonly secrets: SecretStore;
  /** The SSH public keys of each account. */
  readonly sshKeys: SshKeyStore;
  /** Pods: long-running containers of an account. */
  readonly pods: PodStore;
  readonly webhookSecrets: WebhookSecretStore;
  /** Metered usage intervals, for billing. */
  readonly usage: UsageStore;
  /** Endpoints' workers by state over time, for charts. */
  readonly workerSamples: WorkerSampleStore;
  /** The idempotency keys of recent submits (written with their jobs by jobs.insertAll). */
  readonly submitKeys: SubmitKeyStore;
  close(): Promise<void>;

  /**
   * A number that changes whenever an API key may have changed, by this process or another, read
   * without a query round trip; undefined when the store cannot tell that cheaply. While it stays
   * the same, API key records read earlier are still current (see ShortLivedCopies). It may be read once
   * per event-loop turn: every request handled in a turn arrived before the turn's first read.
   */
  apiKeysMark(): number | undefined;

  /**
   * Creates the account unless one of that name exists, and answers the one that does: processes
   * creating the same account at once all get the same row.
   */
  ensureAccount(account: AccountRecord): Promise<{ account: AccountRecord; created: boolean }>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  findAccountByName(name: string): Promise<AccountRecord | undefined>;

  insertApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /**
   * Inserts the key only when the deployment has no key at all, atomically across processes, so
   * replicas starting together on an empty database make one admin key between them.
   */
  insertFirstApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** Returns false when no such key exists. */
  revokeApiKey(id: string, at: string): Promise<boolean>;

  insertEndpoint(endpoint: EndpointRecord, release?: ReleaseRecord): Promise<void>;
  getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined>;
  listEndpoints(accountId: string): Promise<EndpointRecord[]>;
  /** Every endpoint of every account: for the runtime and metrics, which serve the whole deployment. */
  listAllEndpoints(): Promise<EndpointRecord[]>;
  /** Any endpoint by id, whoever owns it: for worker credentials, which name only the endpoint. */
  findEndpoint(id: string): Promise<EndpointRecord | undefined>;
  /**
   * Writes the record if its revision is still `expectedRevision`; false when another write came first.
   * A release, when given, is recorded in the same transaction.
   */
  updateEndpoint(endpoint: EndpointRecord, expectedRevision: number, release?: ReleaseRecord): Promise<boolean>;
  /** Newest first. */
  listReleases(endpointId: string): Promise<ReleaseRecord[]>;
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;

  insertTemplate(template: TemplateRecord): Promise<void>;
  /** Any template by id, whoever owns it; access rules are the caller's. */
  getTemplate(id: string): Promise<TemplateRecord | undefined>;
  listTemplates(accountId: string): Promise<TemplateRecord[]>;
  /** Templates other accounts shared publicly (the catalog's community slice). */
  listSharedTemplates(limit: number): Promise<TemplateRecord[]>;
  updateTemplate(template: TemplateRecord): Promise<void>;
  deleteTemplate(accountId: string, id: string): Promise<boolean>;
  templateNameTaken(accountId: string, name: string, exceptId?: string): Promise<boolean>;

  insertNetworkVolume(volume: NetworkVolumeRecord): Promise<void>;
  /** The account's volume; another account's id is unknown. */
  getNetworkVolume(accountId: string, id: string): Promise<NetworkVolumeRecord | undefined>;
  /** Oldest first. */
  listNetworkVolumes(accountId: string): Promise<NetworkVolumeRecord[]>;
  /** Every account's volumes, oldest first: for metering, which serves the whole deployment. */
  listAllNetworkVolumes(): Promise<NetworkVolumeRecord[]>;
  /** Writes name and size (the rest is immutable); false when the volume is gone. */
  /** False when the volume is gone, or is larger by now than `volume` says: a volume never shrinks. */
  updateNetworkVolume(volume: NetworkVolumeRecord): Promise<boolean>;
  deleteNetworkVolume(accountId: string, id: string): Promise<boolean>;
}
