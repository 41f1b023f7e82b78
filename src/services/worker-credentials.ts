// Worker credentials: `gantry_wk_<id>_<secret>`, each granting the worker protocol of one endpoint.
// Workers send them as the raw Authorization value, as RunPod SDK workers do.
import type { Clock } from '../domain/clock.js';
import { randomBytes } from 'node:crypto';
import { hashSecret, secretMatches } from './secret-hash.js';
import type { Store } from '../store/store.js';
import { randomId } from '../domain/ids.js';
import { ShortLivedCopies } from '../domain/short-lived-copies.js';

const TOKEN_PATTERN = /^gantry_wk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** Verified credentials are remembered briefly: workers call on every job, and a deleted endpoint's
 * credentials stop working within this time. */
const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;

export class WorkerCredentialService {
  /** Endpoints of verified credentials, by token; a worker's requests that arrive together as its copy runs out check it once. */
  private readonly verified = new ShortLivedCopies<string | undefined>({
    freshForMs: CACHE_MS,
    maxEntries: CACHE_MAX,
    keep: (endpointId) => endpointId !== undefined,
  });

  constructor(
    private readonly store: Store,
    private readonly now: Clock = Date.now,
  ) {}

  async create(endpointId: string, now = new Date(this.now())): Promise<string> {
    const id = randomId(12);
    const secret = randomBytes(32).toString('base64url');
    await this.store.jobs.insertWorkerCredential({
      id,
      endpointId,
      secretHash: hashSecret(secret),
      createdAt: now.toISOString(),
      revokedAt: null,
    });
    return `gantry_wk_${id}_${secret}`;
  }

  /** The endpoint the credential is for, or undefined when it is not a valid credential. */
  verify(token: string): Promise<string | undefined> {
    return this.verified.get(token, () => this.check(token));
  }

  private async check(token: string): Promise<string | undefined> {
    const match = TOKEN_PATTERN.exec(token.trim());
    if (!match) return undefined;
    const [, id, secret] = match as unknown as [string, string, string];
    const credential = await this.store.jobs.getWorkerCredential(id);
    if (!credential || credential.revokedAt) return undefined;
    if (!(await this.store.findEndpoint(credential.endpointId))) return undefined;
    if (!secretMatches(secret, credential.secretHash)) return undefined;
    return credential.endpointId;
  }
}
