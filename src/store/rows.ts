// Table rows as both stores return them, and their mapping to records. SQLite gives 0/1 where
// PostgreSQL gives booleans; everything else has the same shape.
import type { JobStatus } from '../domain/job-state.js';
import type { EndpointSpec, TemplateSpec } from '../domain/endpoint-spec.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  EndpointRecord,
  KeyPermission,
  NetworkVolumeRecord,
  ReleaseRecord,
  TemplateRecord,
} from './store.js';
import type { VolumeType } from '../domain/network-volume.js';
import type { DueWebhook, JobRecord, JobState, WorkerCredentialRecord } from './job-store.js';

export interface AccountRow {
  id: string;
  name: string;
  created_at: string;
}

export interface ReleaseRow {
  id: string;
  endpoint_id: string;
  version: number;
  source: ReleaseRecord['source'];
  diff: string;
  created_by: string | null;
  created_at: string;
}

export interface WorkerCredentialRow {
  id: string;
  endpoint_id: string;
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  secret_hash: string;
  permission: KeyPermission;
  endpoint_ids: string;
  rate_limit_exempt: number | boolean;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export interface EndpointRow {
  id: string;
  account_id: string;
  spec: string;
  version: number;
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface TemplateRow {
  id: string;
  account_id: string | null;
  spec: string;
  created_at: string;
  updated_at: string;
}

export interface JobRow {
  id: string;
  endpoint_id: string;
  account_id: string;
  status: JobStatus;
  input: string;
  webhook: string | null;
  s3_config: string | null;
  execution_timeout_ms: number;
  low_priority: number | boolean;
  retention_ms: number;
  ttl_ms: number;
  submitted_at: number;
  started_at: number | null;
  completed_at: number | null;
  expires_at: number;
  output: string | null;
  error: string | null;
  worker_id: string | null;
  lease_expires_at: number | null;
  retries: number;
  lease_losses: number;
}

export const LOST_LEASE_ERROR = 'the job was lost by its workers too many times (their leases lapsed without a result)';
export const LOST_WORKER_ERROR = 'the job was lost by its workers too many times (the last one stopped without sending a result)';

/** The columns of a job's state (JOB_STATE_COLUMNS). */
export type JobStateRow = Omit<JobRow, 'input' | 's3_config'>;

export function jobStateFromRow(row: JobStateRow): JobState {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    accountId: row.account_id,
    status: row.status,
    webhook: row.webhook,
    executionTimeoutMs: row.execution_timeout_ms,
    lowPriority: Boolean(row.low_priority),
    retentionMs: row.retention_ms,
    ttlMs: row.ttl_ms,
    submittedAt: row.submitted_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    expiresAt: row.expires_at,
    output: row.output,
    error: row.error,
    workerId: row.worker_id,
    leaseExpiresAt: row.lease_expires_at,
    retries: row.retries,
    leaseLosses: row.lease_losses,
  };
}

export function jobFromRow(row: JobRow): JobRecord {
  // Added to the state's object rather than spread into a new one, which costs a copy per job.
  const job = jobStateFromRow(row) as JobRecord;
  job.input = row.input;
  job.s3Config = row.s3_config;
  return job;
}

export interface WebhookRow extends JobStateRow {
  webhook_attempts: number;
  sealed_webhook_secret: string | null;
}

export function dueWebhookFromRow(row: WebhookRow): DueWebhook {
  return { job: jobStateFromRow(row), attempt: row.webhook_attempts, sealedSecret: row.sealed_webhook_secret ?? null };
}

export function keyFromRow(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    secretHash: row.secret_hash,
    permission: row.permission,
    endpointIds: JSON.parse(row.endpoint_ids) as string[],
    rateLimitExempt: Boolean(row.rate_limit_exempt),
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

export function endpointFromRow(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    spec: JSON.parse(row.spec) as EndpointSpec,
    version: row.version,
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function templateFromRow(row: TemplateRow): TemplateRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    spec: JSON.parse(row.spec) as TemplateSpec,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function accountFromRow(row: AccountRow): AccountRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function releaseFromRow(row: ReleaseRow): ReleaseRecord {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    version: row.version,
    source: row.source,
    diff: JSON.parse(row.diff) as ReleaseRecord['diff'],
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

export function workerCredentialFromRow(row: WorkerCredentialRow): WorkerCredentialRecord {
  return { id: row.id, endpointId: row.endpoint_id, secretHash: row.secret_hash, createdAt: row.created_at, revokedAt: row.revoked_at };
}

export interface NetworkVolumeRow {
  id: string;
  account_id: string;
  name: string;
  size_gb: number;
  data_center_id: string;
  type: VolumeType;
  created_at: string;
  updated_at: string;
}

export function networkVolumeFromRow(row: NetworkVolumeRow): NetworkVolumeRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    spec: { name: row.name, size: row.size_gb, dataCenterId: row.data_center_id, type: row.type },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
