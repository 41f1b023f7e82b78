// Writes that break a uniqueness rule fail with one error and one text on every adapter, instead
// of each database's own wording (SQLite's "UNIQUE constraint failed", PostgreSQL's 23505).
import type { EndpointRecord, ReleaseRecord, Store, TemplateRecord } from '../store.js';
import type { NewJob } from '../job-store.js';
import type { SubmitKeyRecord, SubmitKeyStore } from '../submit-key-store.js';

export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

const UNIQUE_VIOLATIONS = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export function isUniqueViolation(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && UNIQUE_VIOLATIONS.has(code);
}

/** Runs `write`; a uniqueness violation becomes a StoreConflictError saying `conflict()`. */
export async function uniquely<T>(write: () => T | Promise<T>, conflict: () => string | Promise<string>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new StoreConflictError(await conflict(), { cause: error });
  }
}

export const conflictText = {
  apiKey: (id: string) => `api key ${id} already exists`,
  endpoint: (id: string) => `endpoint ${id} already exists`,
  release: (r: ReleaseRecord) => `endpoint ${r.endpointId} already has a release ${r.version} (or one with id ${r.id})`,
  template: (id: string) => `template ${id} already exists`,
  networkVolume: (id: string) => `network volume ${id} already exists`,
  /** The same words the API answers 409 with. */
  templateName: (name: string) => `a template named '${name}' already exists in this account`,
  job: (id: string) => `job ${id} already exists`,
  jobs: (ids: readonly string[]) => `one of ${ids.length} jobs (${ids[0]} first) already exists`,
  workerCredential: (id: string) => `worker credential ${id} already exists`,
  submitKey: (k: SubmitKeyRecord) => `endpoint ${k.endpointId} already has a submit with idempotency key '${k.key}'`,
};

/** Jobs inserted with a submit key clash on the key when another submit holds it, else on an id. */
export async function jobsInsertConflict(
  submitKeys: Pick<SubmitKeyStore, 'find'>,
  jobs: readonly NewJob[],
  key: SubmitKeyRecord | undefined,
): Promise<string> {
  if (key && (await submitKeys.find(key.endpointId, key.key))) return conflictText.submitKey(key);
  return conflictText.jobs(jobs.map((job) => job.id));
}

/**
 * An endpoint insert writes the endpoint and maybe its first release, in one transaction that
 * rolled back: the endpoint is still there only when its id was the clash.
 */
export async function endpointInsertConflict(
  store: Pick<Store, 'findEndpoint'>,
  e: EndpointRecord,
  release?: ReleaseRecord,
): Promise<string> {
  if ((await store.findEndpoint(e.id)) || !release) return conflictText.endpoint(e.id);
  return conflictText.release(release);
}

/** A template write clashes on its name when another template of the account holds it, else on its id. */
export async function templateConflict(store: Pick<Store, 'templateNameTaken'>, t: TemplateRecord): Promise<string> {
  if (t.accountId !== null && (await store.templateNameTaken(t.accountId, t.spec.name, t.id)))
    return conflictText.templateName(t.spec.name);
  return conflictText.template(t.id);
}
