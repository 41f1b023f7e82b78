// Sending a finished job's webhook: POST the status body, and never reach private, loopback or
// link-local addresses unless the operator allows them.
// Addresses are checked in the connection's own DNS lookup, so a name cannot resolve to a safe
// address for the check and an internal one for the connection. Sent through undici, as the
// balancer's requests are: node's HTTP client cost twice as much CPU per delivery.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AddressPolicy, hostOf } from './webhook-address.js';

export { AddressPolicy } from './webhook-address.js';

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

/** undici's errors for a phase that outlasted its time-out. */
const TIMED_OUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Sends one webhook POST; the outbox decides when to send and whether to try again. */
export class WebhookSender {
  private readonly addresses: AddressPolicy;
  private readonly timeoutMs: number;
  private readonly resolve: HostResolver;
  private readonly inFlight = new Set<AbortController>();
  /** Connections to receivers, kept alive between deliveries; each phase of an attempt is bounded. */
  private readonly connections: Agent;

  constructor(options: WebhookSenderOptions = {}) {
    this.addresses = new AddressPolicy(options.allowedCidrs ?? []);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.resolve = options.resolve ?? systemResolver;
    this.connections = new Agent({
      connect: { lookup: this.guardedLookup, timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4000,
    });
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
      return this.addresses.refuses('127.0.0.1') ? 'must not point at this machine (localhost)' : undefined;
    }
    if (ipaddr.isValid(host)) {
      return this.addresses.refuses(host) ? `must not point at a private, loopback or link-local address (${host})` : undefined;
    }
    const refused = (await this.resolveForSubmit(host)).find((address) => this.addresses.refuses(address));
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

  /** Aborts the requests in flight and closes the connections; nothing is sent afterwards. */
  close(): void {
    for (const controller of this.inFlight) controller.abort();
    void this.connections.destroy().catch(() => undefined);
  }

  /** Resolves the host inside the connection and refuses it when any address is off limits. */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => this.addresses.refuses(a.address));
      if (refused)
        return callback(new RefusedTarget(`${hostname} resolves to ${refused.address}, a private, loopback or link-local address`), '', 0);
      const first = list[0]!;
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };

  private async post(url: string, body: string, extraHeaders: Record<string, string>): Promise<number> {
    const target = new URL(url);
    const host = hostOf(target);
    // A literal address never goes through lookup, so it is checked here.
    if (ipaddr.isValid(host) && this.addresses.refuses(host)) {
      throw new RefusedTarget(`${host} is a private, loopback or link-local address`);
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    try {
      const res = await request(target, {
        method: 'POST',
        headers: { ...extraHeaders, 'content-type': 'application/json', 'user-agent': 'Gantry-Webhook/1' },
        body,
        dispatcher: this.connections,
        signal: controller.signal,
      });
      await res.body.dump();
      return res.statusCode;
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      const refused = err instanceof RefusedTarget ? err : cause instanceof RefusedTarget ? cause : undefined;
      if (refused) throw refused;
      if (TIMED_OUT.has((err as { code?: string }).code ?? '')) throw new Error(`no answer within ${this.timeoutMs} ms`);
      throw err;
    } finally {
      this.inFlight.delete(controller);
    }
  }
}
