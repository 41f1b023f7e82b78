// Each endpoint's webhook signing secret: made with the endpoint (or at first need, for endpoints
// older than signing), kept sealed by the secrets box, shown only to the endpoint's owner, and
// replaced on request. The plain secret is never logged.
import type { Store } from '../store/store.js';
import type { Secrets } from './secrets/secrets.js';
import { notFound } from '../domain/errors.js';
import { newWebhookSecret } from './webhook-signature.js';

/** Associated data of the sealed value: a secret copied onto another endpoint's row does not open there. */
const sealContext = (endpointId: string) => `webhook-secret:${endpointId}`;

/**
 * Opened secrets kept, by endpoint and sealed value: every delivery is signed, and opening one
 * (AES-GCM) cost as much as the signature. A sealed value is new on every rotation (a fresh
 * nonce), so an entry is never stale; this process holds the key that opens them all anyway.
 */
const OPENED_KEPT = 1024;

export class WebhookSecretService {
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly store: Pick<Store, 'webhookSecrets' | 'getEndpoint'>,
    private readonly secrets: Pick<Secrets, 'seal' | 'open' | 'unavailable'>,
  ) {}

  /** Why no delivery of this process can be signed (no secret key: fixed until it restarts), or undefined. */
  get unavailable(): string | undefined {
    return this.secrets.unavailable;
  }

  /** The endpoint's secret, made now if it has none; undefined when the endpoint is gone. */
  async secretOf(endpointId: string, sealed?: string | null): Promise<string | undefined> {
    const kept =
      sealed ??
      (await this.store.webhookSecrets.get(endpointId)) ??
      (await this.store.webhookSecrets.setIfMissing(endpointId, this.sealNew(endpointId)));
    return kept === undefined ? undefined : this.open(endpointId, kept);
  }

  private open(endpointId: string, sealed: string): string {
    const key = `${endpointId} ${sealed}`;
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = this.secrets.open(sealed, sealContext(endpointId));
      if (this.opened.size >= OPENED_KEPT) this.opened.clear();
      this.opened.set(key, secret);
    }
    return secret;
  }

  /** For the endpoint's owner: its secret (404 for an endpoint that is not the account's). */
  async reveal(accountId: string, endpointId: string): Promise<string> {
    await this.ownedEndpoint(accountId, endpointId);
    const secret = await this.secretOf(endpointId);
    if (secret === undefined) throw notFound(`endpoint ${endpointId} not found`);
    return secret;
  }

  /** For the endpoint's owner: a new secret, which signs every delivery from now on. */
  async rotate(accountId: string, endpointId: string): Promise<string> {
    await this.ownedEndpoint(accountId, endpointId);
    const secret = newWebhookSecret();
    if (!(await this.store.webhookSecrets.replace(endpointId, this.secrets.seal(secret, sealContext(endpointId))))) {
      throw notFound(`endpoint ${endpointId} not found`);
    }
    return secret;
  }

  private sealNew(endpointId: string): string {
    return this.secrets.seal(newWebhookSecret(), sealContext(endpointId));
  }

  private async ownedEndpoint(accountId: string, endpointId: string): Promise<void> {
    if (!(await this.store.getEndpoint(accountId, endpointId))) throw notFound(`endpoint ${endpointId} not found`);
  }
}
