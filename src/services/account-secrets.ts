// Per-account secrets: values endpoint and template env values reference as
// `{{ RUNPOD_SECRET_<name> }}`. A value is write-only: sealed by the secrets box before it is
// stored, never returned by the API, and opened only for the runtime, which puts it in the env of
// a worker it starts. Errors name secrets, never their values.
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import type { SecretRecord } from '../store/secret-store.js';
import { StoreConflictError } from '../store/shared/conflicts.js';
import type { SecretEnvironment } from '../runtime/ports.js';
import { ApiError, notFound } from '../domain/errors.js';
import { referencedSecretNames, resolveSecretReferences, secretReferencesByVariable } from '../domain/secret-references.js';
import type { Secrets } from './secrets/secrets.js';

/** What the box authenticates with a value, so a sealed value only opens on its own row. */
const sealContext = (accountId: string, name: string) => `secret:${accountId}:${name}`;

export class AccountSecretService implements SecretEnvironment {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    /** The cluster's clock: records are listed in the order they were made, whichever replica made them. */
    private readonly now: Clock = Date.now,
  ) {}

  async create(accountId: string, body: { name: string; value: string }, now = new Date(this.now())): Promise<SecretRecord> {
    const at = now.toISOString();
    const record: SecretRecord = {
      accountId,
      name: body.name,
      sealedValue: this.secrets.seal(body.value, sealContext(accountId, body.name)),
      createdAt: at,
      updatedAt: at,
    };
    try {
      await this.store.secrets.insert(record);
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      throw new ApiError(409, error.message, [`name: '${body.name}' is already used by another secret of this account`]);
    }
    return record;
  }

  list(accountId: string): Promise<SecretRecord[]> {
    return this.store.secrets.list(accountId);
  }

  async get(accountId: string, name: string): Promise<SecretRecord> {
    const record = await this.store.secrets.get(accountId, name);
    if (!record) throw notFound(`secret '${name}' not found`);
    return record;
  }

  /** A new value; workers started from now on get it, running ones keep the one they started with. */
  async rotate(accountId: string, name: string, value: string, now = new Date(this.now())): Promise<SecretRecord> {
    const sealed = this.secrets.seal(value, sealContext(accountId, name));
    if (!(await this.store.secrets.rotate(accountId, name, sealed, now.toISOString()))) throw notFound(`secret '${name}' not found`);
    return this.get(accountId, name);
  }

  /** Refused (400, as a registry credential in use is) while endpoints or templates reference it. */
  async delete(accountId: string, name: string): Promise<void> {
    const result = await this.store.secrets.delete(accountId, name);
    if (result.outcome === 'missing') throw notFound(`secret '${name}' not found`);
    if (result.outcome === 'in-use') {
      const users = [
        ...(await Promise.all(
          result.endpointIds.map(async (id) => labelled('endpoint', id, (await this.store.getEndpoint(accountId, id))?.spec.name)),
        )),
        ...(await Promise.all(
          result.templateIds.map(async (id) => labelled('template', id, (await this.store.getTemplate(id))?.spec.name)),
        )),
      ];
      throw new ApiError(
        400,
        `secret '${name}' is in use by ${users.join(', ')}: remove the references from their env first`,
        users.map((user) => `${user} references {{ RUNPOD_SECRET_${name} }} in its env`),
      );
    }
  }

  /**
   * An env an endpoint or template of the account may hold: every secret it references exists in
   * the account. Else 404 (a reference to a resource the caller does not have, as an unknown
   * registry credential), listing each unknown reference at the variable that holds it.
   */
  async ensureReferencesExist(accountId: string, env: Readonly<Record<string, string>>): Promise<void> {
    const names = referencedSecretNames(env);
    if (names.length === 0) return;
    const known = new Set((await this.store.secrets.getMany(accountId, names)).map((record) => record.name));
    const unknown = names.filter((name) => !known.has(name));
    if (unknown.length === 0) return;
    throw new ApiError(
      404,
      `${unknown.length === 1 ? 'secret' : 'secrets'} ${unknown.map((name) => `'${name}'`).join(', ')} not found`,
      secretReferencesByVariable(env)
        .filter((reference) => !known.has(reference.name))
        .map((reference) => `env.${reference.variable}: no secret '${reference.name}' in this account`),
    );
  }

  /** The runtime's port: an env of the account with its references replaced by the values. */
  async resolve(accountId: string, env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    const names = referencedSecretNames(env);
    if (names.length === 0) return { ...env };
    const values = new Map<string, string>();
    for (const record of await this.store.secrets.getMany(accountId, names)) {
      try {
        values.set(record.name, this.secrets.open(record.sealedValue, sealContext(accountId, record.name)));
      } catch (error) {
        throw new Error(`cannot open secret '${record.name}': ${(error as Error).message}`);
      }
    }
    return resolveSecretReferences(env, values);
  }
}

const labelled = (kind: string, id: string, name: string | undefined) =>
  name === undefined ? `${kind} ${id}` : `${kind} ${id} ('${name}')`;
