// Worker credentials: `gantry_wk_<id>_<secret>`, each granting the worker protocol of one endpoint.
// Workers send them as the raw Authorization value, as RunPod SDK workers do.
import { randomBytes } from 'node:crypto';
import { hashSecret, secretMatches } from './secret-hash.js';
import type { Store } from '../store/store.js';
import { randomId } from '../domain/ids.js';
import { SharedLoads } from '../domain/shared-loads.js';

const TOKEN_PATTERN = /^gantry_wk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** Verified credentials are remembered briefly: workers call on every job, and a deleted endpoint's
 * credentials stop working within this time. */
const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;

export class WorkerCredentialService {
  private readonly verified = new Map<string, { endpointId: string; until: number }>();
  private readonly checks = new SharedLoads<string | undefined>();

  constructor(private readonly store: Store) {}

  async create(endpointId: string, now = new Date()): Promise<string> {
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
  async verify(token: string, now = Date.now()): Promise<string | undefined> {
    const cached = this.verified.get(token);
    if (cached && cached.until > now) return cached.endpointId;
    // A worker's take, results and heartbeat that arrive together as its copy runs out check it once.
    return this.checks.load(token, () => this.check(token, now));
  }

  private async check(token: string, now: number): Promise<string | undefined> {
    const match = TOKEN_PATTERN.exec(token.trim());
    if (!match) return undefined;
    const [, id, secret] = match as unknown as [string, string, string];
    const credential = await this.store.jobs.getWorkerCredential(id);
    if (!credential || credential.revokedAt) return undefined;
    if (!(await this.store.findEndpoint(credential.endpointId))) return undefined;
    if (!secretMatches(secret, credential.secretHash)) return undefined;
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(token, { endpointId: credential.endpointId, until: now + CACHE_MS });
    return credential.endpointId;
  }
}
