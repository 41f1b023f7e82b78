// What an Idempotency-Key of a submit is and how it is remembered (docs/decisions/0040); shared by
// the job service, which stores the key with its jobs, and the keyed submits that read it back.
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import type { SubmitKeyRecord } from '../store/submit-key-store.js';

/** How long a submit's key is remembered: a client retrying a lost answer does so well within a day. */
export const SUBMIT_KEY_TTL_MS = 24 * 3_600_000;

/** A key sent with a submit, and the fingerprint of the request it came with. */
export interface SubmitOnce {
  key: string;
  fingerprint: string;
}

/**
 * The same route with the same body gives the same fingerprint. An object's members are unordered
 * in JSON, so they are hashed sorted by name: a client that rebuilds its request in another order
 * sends the same request. Arrays keep their order: the order of a batch's jobs is its answer's.
 */
export function submitOnce(key: string, route: string, body: unknown): SubmitOnce {
  const fingerprint = createHash('sha256').update(route).update('\n').update(stableStringify(body)!).digest('base64url');
  return { key, fingerprint };
}

/** The record of a key with the jobs it queued, in their order. */
export function submitKeyRecord(endpointId: string, once: SubmitOnce, jobs: readonly { id: string }[], now: number): SubmitKeyRecord {
  const jobIds = jobs.map((job) => job.id);
  return { endpointId, key: once.key, fingerprint: once.fingerprint, jobIds, createdAt: now, expiresAt: now + SUBMIT_KEY_TTL_MS };
}
