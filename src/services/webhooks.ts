// Sending a finished job's webhook: POST the status body, and never reach private, loopback or
// link-local addresses unless the operator allows them.
// Addresses are checked in the connection's own DNS lookup, so a name cannot resolve to a safe
// address for the check and an internal one for the connection.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { hostOf, isRefusedAddress } from './webhook-address.js';

export { isRefusedAddress } from './webhook-address.js';

/** Resolves a host name to its addresses (the system resolver unless a test supplies one). */
export type HostResolver = (hostname: string) => Promise<string[]>;

const systemResolver: HostResolver = async (hostname) => (await dnsLookupAll(hostname, { all: true })).map((a) => a.address);

/** How long submit waits for a name to resolve; past it the delivery-time check still applies. */
const SUBMIT_LOOKUP_TIMEOUT_MS = 2000;

export interface WebhookSenderOptions {
  /** CIDR ranges allowed although private (e.g. 127.0.0.0/8 for tests). */
  allowedCidrs?: readonly string[];
  timeoutMs?: number;
  resolve?: HostResolver;
}

/** How one attempt went: `retry` false means trying again cannot help (a refused target). */
export type SendOutcome = { delivered: true } | { delivered: false; retry: boolean; why: string };

class RefusedTarget extends Error {}

/** Sends one webhook POST; the outbox decides when to send and whether to try again. */
export class WebhookSender {
  private readonly allowedCidrs: readonly string[];
  private readonly timeoutMs: number;
  private readonly resolve: HostResolver;
  private readonly inFlight = new Set<AbortController>();

  constructor(options: WebhookSenderOptions = {}) {
    this.allowedCidrs = options.allowedCidrs ?? [];
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.resolve = options.resolve ?? systemResolver;
  }

  /**
   * Checked when a job is submitted: a reason when the URL cannot be a webhook target. A name is
   * resolved too, so one pointing inside is refused now rather than after the job ran; the check
   * at delivery stays, as the name may resolve differently by then.
   */
  async checkTarget(url: string): Promise<string | undefined> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'must be an absolute http or https URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an absolute http or https URL';
    if (parsed.username || parsed.password) return 'must not carry credentials in the URL';
    const host = hostOf(parsed);
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return isRefusedAddress('127.0.0.1', this.allowedCidrs) ? 'must not point at this machine (localhost)' : undefined;
    }
    if (ipaddr.isValid(host)) {
      return isRefusedAddress(host, this.allowedCidrs)
        ? `must not point at a private, loopback or link-local address (${host})`
        : undefined;
    }
    const refused = (await this.resolveForSubmit(host)).find((address) => isRefusedAddress(address, this.allowedCidrs));
    return refused === undefined
      ? undefined
      : `must not point at a private, loopback or link-local address (${host} resolves to ${refused})`;
  }

  /** The addresses a name has now; none when it does not resolve in time (delivery checks again). */
  private async resolveForSubmit(host: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string[]>((resolve) => {
      timer = setTimeout(() => resolve([]), SUBMIT_LOOKUP_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.resolve(host).catch(() => []), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `headers` are added to the request (the delivery's signature). */
  async send(url: string, jsonBody: string, headers: Record<string, string> = {}): Promise<SendOutcome> {
    try {
      const status = await this.post(url, jsonBody, headers);
      if (status >= 200 && status < 300) return { delivered: true };
      return { delivered: false, retry: true, why: `answered ${status}` };
    } catch (error) {
      return { delivered: false, retry: !(error instanceof RefusedTarget), why: (error as Error).message };
    }
  }

  /** Aborts the requests in flight. */
  close(): void {
    for (const controller of this.inFlight) controller.abort();
  }

  /** Resolves the host inside the connection and refuses it when any address is off limits. */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => isRefusedAddress(a.address, this.allowedCidrs));
      if (refused)
        return callback(new RefusedTarget(`${hostname} resolves to ${refused.address}, a private, loopback or link-local address`), '', 0);
      const first = list[0]!;
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };

  private post(url: string, body: string, extraHeaders: Record<string, string>): Promise<number> {
    const target = new URL(url);
    const host = hostOf(target);
    // A literal address never goes through lookup, so it is checked here.
    if (ipaddr.isValid(host) && isRefusedAddress(host, this.allowedCidrs)) {
      return Promise.reject(new RefusedTarget(`${host} is a private, loopback or link-local address`));
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<number>((resolve, reject) => {
      const req = send(
        target,
        {
          method: 'POST',
          headers: {
            ...extraHeaders,
            'content-type': 'application/json',
            'user-agent': 'Gantry-Webhook/1',
            'content-length': Buffer.byteLength(body),
          },
          lookup: this.guardedLookup,
          signal: controller.signal,
          timeout: this.timeoutMs,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) =>
        reject(
          err instanceof RefusedTarget || (err as { cause?: unknown }).cause instanceof RefusedTarget
            ? new RefusedTarget(err.message)
            : err,
        ),
      );
      req.end(body);
    }).finally(() => this.inFlight.delete(controller));
  }
}
