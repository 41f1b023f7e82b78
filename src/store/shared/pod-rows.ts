// Pod rows as both stores return them, and their mapping to records.
import type { PodHolding, PodRecord } from '../pod-store.js';

export interface PodRow {
  id: string;
  account_id: string;
  spec: string;
  status: PodRecord['status'];
  placement: string | null;
  message: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
  last_started_at: string | null;
  last_status_change: string;
}

export function podFromRow(row: PodRow): PodRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    spec: JSON.parse(row.spec) as PodRecord['spec'],
    status: row.status,
    placement: row.placement === null ? null : (JSON.parse(row.placement) as PodRecord['placement']),
    message: row.message,
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastStartedAt: row.last_started_at,
    lastStatusChange: row.last_status_change,
  };
}

/** Values in column order: id, account_id, spec, status, placement, message, revision, created_at, updated_at, last_started_at, last_status_change. */
export function podValues(pod: PodRecord): unknown[] {
  return [
    pod.id,
    pod.accountId,
    JSON.stringify(pod.spec),
    pod.status,
    pod.placement === null ? null : JSON.stringify(pod.placement),
    pod.message,
    pod.revision,
    pod.createdAt,
    pod.updatedAt,
    pod.lastStartedAt,
    pod.lastStatusChange,
  ];
}

export function holdingFromRecord(pod: PodRecord): PodHolding | undefined {
  if (!pod.placement) return undefined;
  return {
    id: pod.id,
    accountId: pod.accountId,
    status: pod.status,
    placement: pod.placement,
    lastStartedAt: pod.lastStartedAt,
    lastStatusChange: pod.lastStatusChange,
  };
}

export const POD_COLUMNS =
  'id, account_id, spec, status, placement, message, revision, created_at, updated_at, last_started_at, last_status_change';
export const HOLDING_STATUS_LIST = "('PROVISIONING', 'STARTING', 'RUNNING')";
