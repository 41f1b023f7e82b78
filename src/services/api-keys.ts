// API keys: `gantry_<keyId>_<secret>`. The id finds the record; only sha256(secret) is stored,
// and it is compared in constant time. The secret carries 256 random bits, so a fast hash suffices.
import type { Clock } from '../domain/clock.js';
import { randomBytes } from 'node:crypto';
import { hashSecret, secretMatches } from './secret-hash.js';
import type { ApiKeyRecord, KeyPermission, Store } from '../store/store.js';
import { newAccountId, randomId } from '../domain/ids.js';
import { ShortLivedCopies } from '../domain/short-lived-copies.js';

export const KEY_PREFIX = 'gantry_';
const TOKEN_PATTERN = /^gantry_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
/** Matched tokens remembered at most; past it they are forgotten together and matched again. */
const MATCHED_TOKENS = 10_000;

export interface NewKeyOptions {
  accountName?: string;
  /** An existing account the key belongs to; accountName is then ignored. */
  accountId?: string;
  name?: string;
  permission?: KeyPermission;
  endpointIds?: string[];
  rateLimitExempt?: boolean;
  expiresAt?: string | null;
}

export interface CreatedKey {
  token: string;
  record: ApiKeyRecord;
  accountCreated: boolean;
}

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

export class ApiKeyService {
  /**
   * Every authenticated request looks its key up: while no key has changed (the store's mark,
   * decision 17), the record read last time is current. A store with no mark reads every time.
   */
  private readonly records: ShortLivedCopies<ApiKeyRecord | undefined>;
  /**
   * Each token whose secret matched, with the record copy it matched: while that copy is current
   * the same token skips the hash (worker credentials are kept by token too). A new copy after any
   * key changed is matched afresh.
   */
  private readonly matched = new Map<string, ApiKeyRecord>();

  constructor(
    private readonly store: Store,
    /** Expiry is judged by the cluster's clock, so a key ends at the same moment on every replica. */
    readonly now: Clock = Date.now,
  ) {
    this.records = new ShortLivedCopies({ freshForMs: Infinity, maxEntries: 10_000, mark: () => store.apiKeysMark() });
  }

  async create(options: NewKeyOptions = {}, now = new Date(this.now())): Promise<CreatedKey> {
    const created = await this.insert(options, now, 'always');
    if (!created) throw new Error('the key was not stored');
    return created;
  }

  /** On the very first start there is no key at all: make the admin key, to be shown once. */
  ensureAdminKey(): Promise<CreatedKey | undefined> {
    return this.insert({ name: 'admin', permission: 'full' }, new Date(this.now()), 'if-first');
  }

  /** `if-first`: only when the deployment has no key yet; undefined when it has one. */
  private async insert(options: NewKeyOptions, now: Date, when: 'always' | 'if-first'): Promise<CreatedKey | undefined> {
    const permission = options.permission ?? 'full';
    const endpointIds = options.endpointIds ?? [];
    if (permission === 'endpoints' && endpointIds.length === 0) {
      throw new Error('a key restricted to endpoints needs at least one endpoint id');
    }
    if (permission !== 'endpoints' && endpointIds.length > 0) {
      throw new Error('endpoint ids apply only to keys with the endpoints permission');
    }
    const existing = options.accountId === undefined ? undefined : await this.store.getAccount(options.accountId);
    if (options.accountId !== undefined && !existing) throw new Error(`no account ${options.accountId}`);
    const { account, created: accountCreated } = existing
      ? { account: existing, created: false }
      : await this.store.ensureAccount({
          id: newAccountId(),
          name: options.accountName ?? 'default',
          createdAt: now.toISOString(),
        });
    const id = randomId(12);
    const secret = randomBytes(32).toString('base64url');
    const record: ApiKeyRecord = {
      id,
      accountId: account.id,
      name: options.name ?? `key-${id.slice(0, 6)}`,
      secretHash: hashSecret(secret),
      permission,
      endpointIds,
      rateLimitExempt: options.rateLimitExempt ?? false,
      expiresAt: options.expiresAt ?? null,
      revokedAt: null,
      createdAt: now.toISOString(),
    };
    if (when === 'if-first') {
      if (!(await this.store.insertFirstApiKey(record))) return undefined;
    } else {
      await this.store.insertApiKey(record);
    }
    return { token: `${KEY_PREFIX}${id}_${secret}`, record, accountCreated };
  }

  async verify(token: string, nowMs = this.now()): Promise<KeyCheck> {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return { ok: false, reason: 'malformed' };
    const [, id, secret] = match as unknown as [string, string, string];
    const key = await this.records.get(id, () => this.store.getApiKey(id));
    if (!key) return { ok: false, reason: 'unknown' };
    if (this.matched.get(token) !== key) {
      if (!secretMatches(secret, key.secretHash)) return { ok: false, reason: 'unknown' };
      if (this.matched.size >= MATCHED_TOKENS) this.matched.clear();
      this.matched.set(token, key);
    }
    if (key.revokedAt) return { ok: false, reason: 'revoked' };
    if (key.expiresAt && Date.parse(key.expiresAt) <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, key };
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys();
  }

  revoke(id: string, now = new Date(this.now())): Promise<boolean> {
    return this.store.revokeApiKey(id, now.toISOString());
  }
}
