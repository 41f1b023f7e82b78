// The account's API keys as the REST API manages them (the CLI manages every account's, straight
// in the database). A key may make keys for its own account only, never with more than it has:
// the caller's permission bounds the new key's, an expiring caller cannot make a key that
// outlives it, and only a rate-limit-exempt caller can make an exempt key. Revoking goes through
// the store's revocation, which every key cache honours at once (decision 17).
import type { ApiKeyRecord, KeyPermission, Store } from '../store/store.js';
import { forbidden, notFound, unprocessable } from '../domain/errors.js';
import type { ApiKeyService, CreatedKey } from './api-keys.js';

export interface KeyRequest {
  name: string;
  permission: KeyPermission;
  endpointIds?: string[];
  expiresAt?: string | null;
  rateLimitExempt?: boolean;
}

/** What each permission allows, as a set of the others it includes. */
const INCLUDES: Record<KeyPermission, KeyPermission[]> = {
  full: ['full', 'read', 'endpoints'],
  read: ['read'],
  endpoints: ['endpoints'],
};

export class AccountKeyService {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly store: Store,
  ) {}

  /** The account's keys, oldest first, revoked and expired ones included. */
  async list(accountId: string): Promise<ApiKeyRecord[]> {
    return (await this.keys.list()).filter((key) => key.accountId === accountId);
  }

  async create(caller: ApiKeyRecord, request: KeyRequest, now = new Date(this.keys.now())): Promise<CreatedKey> {
    const endpointIds = [...new Set(request.endpointIds ?? [])];
    if (!INCLUDES[caller.permission].includes(request.permission)) {
      throw forbidden(`a ${caller.permission} key cannot create a ${request.permission} key`);
    }
    if (request.permission === 'endpoints') {
      if (endpointIds.length === 0) throw unprocessable('invalid key', ['endpointIds: a key limited to endpoints names at least one']);
      for (const id of endpointIds) {
        if (!(await this.store.getEndpoint(caller.accountId, id))) throw unprocessable('invalid key', [`endpointIds: no endpoint ${id}`]);
      }
    } else if (endpointIds.length > 0) {
      throw unprocessable('invalid key', ['endpointIds: only a key with the endpoints permission names endpoints']);
    }
    if (request.rateLimitExempt && !caller.rateLimitExempt) throw forbidden('only a rate-limit-exempt key can create an exempt key');
    const expiresAt = request.expiresAt ?? null;
    if (expiresAt !== null) {
      const at = Date.parse(expiresAt);
      if (Number.isNaN(at)) throw unprocessable('invalid key', ['expiresAt: not a date-time']);
      if (at <= now.getTime()) throw unprocessable('invalid key', ['expiresAt: must be in the future']);
    }
    if (caller.expiresAt !== null && (expiresAt === null || Date.parse(expiresAt) > Date.parse(caller.expiresAt))) {
      throw forbidden(`this key expires at ${caller.expiresAt}: a key it creates must expire no later`);
    }
    return this.keys.create(
      {
        accountId: caller.accountId,
        name: request.name,
        permission: request.permission,
        endpointIds,
        rateLimitExempt: request.rateLimitExempt ?? false,
        expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      },
      now,
    );
  }

  /** Revokes the account's key (at once, everywhere); another account's key is not found. */
  async revoke(accountId: string, id: string, now = new Date(this.keys.now())): Promise<ApiKeyRecord> {
    const key = await this.store.getApiKey(id);
    if (!key || key.accountId !== accountId) throw notFound(`API key ${id} not found`);
    await this.keys.revoke(id, now);
    return (await this.store.getApiKey(id)) ?? key;
  }
}
