// Container registry credentials of an account. The username and password are write-only: they
// are sealed by the secrets box before they are stored, never returned by the API, and opened
// only for the runtime, which pulls an endpoint's image with them.
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import type { RegistryAuthRecord } from '../store/registry-auth-store.js';
import { StoreConflictError } from '../store/shared/conflicts.js';
import type { RegistryLogin, RegistryLogins } from '../runtime/ports.js';
import { ApiError, notFound } from '../domain/errors.js';
import { newRegistryAuthId } from '../domain/ids.js';
import type { Secrets } from './secrets/secrets.js';

export interface CreateRegistryAuthInput {
  name: string;
  username: string;
  password: string;
}

export type RegistryLoginInput = Pick<CreateRegistryAuthInput, 'username' | 'password'>;

/** What the box authenticates along with a credential, so a sealed value only opens on its own row. */
const sealContext = (id: string) => `registry-auth:${id}`;

export class RegistryAuthService implements RegistryLogins {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    /** The cluster's clock: records are listed in the order they were made, whichever replica made them. */
    private readonly now: Clock = Date.now,
  ) {}

  async create(accountId: string, body: CreateRegistryAuthInput, now = new Date(this.now())): Promise<RegistryAuthRecord> {
    const id = newRegistryAuthId();
    const login: RegistryLogin = { username: body.username, password: body.password };
    const record: RegistryAuthRecord = {
      id,
      accountId,
      name: body.name,
      sealedCredential: this.secrets.seal(JSON.stringify(login), sealContext(id)),
      createdAt: now.toISOString(),
    };
    try {
      await this.store.registryAuths.insert(record);
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      throw new ApiError(409, error.message, [`name: '${body.name}' is already used by another registry credential of this account`]);
    }
    return record;
  }

  list(accountId: string): Promise<RegistryAuthRecord[]> {
    return this.store.registryAuths.list(accountId);
  }

  async get(accountId: string, id: string): Promise<RegistryAuthRecord> {
    const record = await this.store.registryAuths.get(accountId, id);
    if (!record) throw notFound(`registry credential ${id} not found`);
    return record;
  }

  /** Replaces the username and password of a credential; its id and name stay, so endpoints pull with the new login. */
  async updateLogin(accountId: string, id: string, body: RegistryLoginInput): Promise<RegistryAuthRecord> {
    const login: RegistryLogin = { username: body.username, password: body.password };
    const sealed = this.secrets.seal(JSON.stringify(login), sealContext(id));
    if (!(await this.store.registryAuths.updateCredential(accountId, id, sealed))) throw notFound(`registry credential ${id} not found`);
    return { ...(await this.get(accountId, id)), sealedCredential: sealed };
  }

  /** Refused (400, as the hosted API answers) while endpoints pull with it; templates naming it lose the reference. */
  async delete(accountId: string, id: string, now = new Date(this.now())): Promise<void> {
    const result = await this.store.registryAuths.delete(accountId, id, now.toISOString());
    if (result.outcome === 'missing') throw notFound(`registry credential ${id} not found`);
    if (result.outcome === 'in-use') {
      const users = await Promise.all(
        result.endpointIds.map(async (endpointId) => {
          const name = (await this.store.getEndpoint(accountId, endpointId))?.spec.name;
          return name === undefined ? `endpoint ${endpointId}` : `endpoint ${endpointId} ('${name}')`;
        }),
      );
      throw new ApiError(
        400,
        `registry credential ${id} is in use by ${users.join(', ')}: set their registry to another credential or null first`,
        users.map((user) => `${user} pulls its image with registry credential ${id}`),
      );
    }
  }

  /**
   * A `registry` an endpoint or template of the account may name: null, or one of the account's
   * credentials. Anything else is a reference to a resource the caller does not have: 404.
   */
  async ensureUsable(accountId: string, registry: string | null | undefined): Promise<void> {
    if (registry === null || registry === undefined) return;
    if (!(await this.store.registryAuths.get(accountId, registry))) {
      throw new ApiError(404, `registry credential ${registry} not found`, [
        `registry: no registry credential ${registry} in this account`,
      ]);
    }
  }

  /** The runtime's port: the login an endpoint's image is pulled with. */
  async loginFor(endpointId: string): Promise<RegistryLogin | undefined> {
    const endpoint = await this.store.findEndpoint(endpointId);
    const registry = endpoint?.spec.registry;
    if (!endpoint || !registry) return undefined;
    return this.loginOf(endpoint.accountId, registry, "the endpoint's");
  }

  /** The login a registry credential of the account holds (a pod's image is pulled with it). */
  async loginOf(accountId: string, registry: string, whose = 'the'): Promise<RegistryLogin> {
    const record = await this.store.registryAuths.get(accountId, registry);
    if (!record) throw new Error(`${whose} registry credential ${registry} does not exist (any more)`);
    try {
      const { username, password } = JSON.parse(this.secrets.open(record.sealedCredential, sealContext(record.id))) as RegistryLogin;
      return { username, password, label: `registry credential ${record.id} ('${record.name}')` };
    } catch (error) {
      throw new Error(`cannot open registry credential ${registry}: ${(error as Error).message}`);
    }
  }
}
