// The submit-key part of the Store port: the Idempotency-Key of a submit, remembered with the ids
// of the jobs it queued, so that the same request sent again queues nothing new
// (docs/decisions/0040). A key is written in the same transaction as its jobs (JobStore.insertAll)
// and kept until it expires.

export interface SubmitKeyRecord {
  endpointId: string;
  key: string;
  /** A hash of the route and body the key was first sent with. */
  fingerprint: string;
  /** The jobs that request queued, in its order. */
  jobIds: string[];
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

export interface SubmitKeyStore {
  /** The endpoint's record of this key, even if it has expired and is not yet deleted. */
  find(endpointId: string, key: string): Promise<SubmitKeyRecord | undefined>;
  /** Deletes up to `limit` keys that expired at or before `now`; answers how many. */
  deleteExpired(now: number, limit: number): Promise<number>;
}

export interface SubmitKeyRow {
  endpoint_id: string;
  idempotency_key: string;
  fingerprint: string;
  job_ids: string;
  created_at: number | string;
  expires_at: number | string;
}

export const SUBMIT_KEY_COLUMNS = 'endpoint_id, idempotency_key, fingerprint, job_ids, created_at, expires_at';

export function submitKeyValues(r: SubmitKeyRecord): unknown[] {
  return [r.endpointId, r.key, r.fingerprint, JSON.stringify(r.jobIds), r.createdAt, r.expiresAt];
}

export function submitKeyFromRow(row: SubmitKeyRow): SubmitKeyRecord {
  return {
    endpointId: row.endpoint_id,
    key: row.idempotency_key,
    fingerprint: row.fingerprint,
    jobIds: JSON.parse(row.job_ids) as string[],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
