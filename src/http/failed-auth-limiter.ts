// Failed authentications per client address, in memory: past the limit within a minute the
// address is refused with 429 until the minute is over, before its key is even checked, so
// keys cannot be guessed at request rate. The map is bounded, so a flood of addresses cannot
// grow it without limit: expired entries go first, then the oldest. Behind trusted reverse
// proxies (--trust-proxy) the client is the one X-Forwarded-For names, not the proxy, whose
// address every client shares.
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { ApiError } from '../domain/errors.js';

const WINDOW_MS = 60_000;
const MAX_TRACKED_ADDRESSES = 10_000;

interface Window {
  startedAt: number;
  failures: number;
}

export class FailedAuthLimiter {
  private readonly windows = new Map<string, Window>();

  private readonly trusted: ((address: string, hop: number) => boolean) | undefined;

  constructor(
    /** Failed authentications an address may make per minute. */
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    /** Address ranges of reverse proxies whose X-Forwarded-For is believed. */
    trustedProxies: readonly string[] = [],
  ) {
    this.trusted = trustedProxies.length > 0 ? proxyAddr.compile([...trustedProxies]) : undefined;
  }

  /** The client a request comes from: past the trusted proxies when there are any. */
  clientOf(req: IncomingMessage): string {
    if (this.trusted) return proxyAddr(req, this.trusted);
    return req.socket.remoteAddress ?? 'unknown';
  }

  /** Throws 429 while `address` is over its limit. */
  check(address: string): void {
    const window = this.current(address);
    if (!window || window.failures < this.limit) return;
    const retryAfter = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - this.now()) / 1000));
    throw new ApiError(429, `too many failed authentications from this address; retry in ${retryAfter} s`, undefined, {
      'Retry-After': String(retryAfter),
    });
  }

  recordFailure(address: string): void {
    const window = this.current(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= MAX_TRACKED_ADDRESSES) this.makeRoom();
    this.windows.set(address, { startedAt: this.now(), failures: 1 });
  }

  /** Runs `authenticate` for the request's client, refusing it while over the limit and counting its 401s. */
  async guard<T>(req: IncomingMessage, authenticate: () => Promise<T>): Promise<T> {
    const key = this.clientOf(req);
    this.check(key);
    try {
      return await authenticate();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.recordFailure(key);
      throw error;
    }
  }

  /** Addresses tracked now (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window && this.now() - window.startedAt >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  private makeRoom(): void {
    const now = this.now();
    for (const [address, window] of this.windows) {
      if (now - window.startedAt >= WINDOW_MS) this.windows.delete(address);
    }
    // Still full: the oldest entries (Map keeps insertion order) give way.
    for (const address of this.windows.keys()) {
      if (this.windows.size < MAX_TRACKED_ADDRESSES) break;
      this.windows.delete(address);
    }
  }
}
