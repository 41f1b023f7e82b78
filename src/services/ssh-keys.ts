// The SSH public keys of an account: REST v2's /v2/account/ssh-keys and the legacy GraphQL
// `pubKey` read and write the same set through here.
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import { Violations } from '../domain/errors.js';
import { normaliseAuthorizedKeys } from '../domain/ssh-keys.js';

export class SshKeyService {
  constructor(
    private readonly store: Store,
    private readonly now: Clock = Date.now,
  ) {}

  list(accountId: string): Promise<string[]> {
    return this.store.sshKeys.list(accountId);
  }

  /** Replaces the whole set; every entry must be an authorized_keys line (400 listing each one that is not). */
  async replace(accountId: string, entries: readonly string[], now = new Date(this.now())): Promise<string[]> {
    const v = new Violations();
    const keys = normaliseAuthorizedKeys(entries, v);
    v.throwIfAny('some keys are not SSH public keys (authorized_keys lines)');
    await this.store.sshKeys.replace(accountId, keys, now.toISOString());
    return keys;
  }
}
