// Reaches a pod's HTTP ports through Gantry: /v2/pods/{podId}/ports/{port}/<path> goes to that
// port of the pod's container, <path> being what the pod sees. The caller authenticates with an
// API key of the pod's account (Bearer), as for the management API; a read key may only read.
// Requests and upgrades (WebSockets, as Jupyter uses) stream both ways, unparsed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiKeyService } from '../services/api-keys.js';
import type { RateLimiter } from '../cluster/rate-limiter.js';
import type { PodService } from '../services/pods.js';
import { ApiError, conflict, notFound } from '../domain/errors.js';
import { podPorts } from '../domain/pod.js';
import type { HttpAddress } from '../domain/workers.js';
import { authenticateKey, authorise } from '../http/auth.js';
import type { FailedAuthLimiter } from '../http/failed-auth-limiter.js';
import { sendRawProblem, writeSocketProblem } from '../http/raw-problem.js';
import { unexpectedProblem } from '../http/problem.js';
import { forward, workerConnections } from './forward.js';
import { forwardUpgrade } from './upgrade.js';

export const POD_PROXY_PATTERN = /^\/v2\/pods\/([a-z0-9]+)\/ports\/(\d{1,5})([/?][^]*)?$/;

export interface PodTarget {
  podId: string;
  port: number;
  path: string;
}

/** Every pod route: another replica than the leader relays them, untouched, to the leader. */
const POD_ROUTES = /^\/v2\/pods(?:[/?]|$)/;
/** Marks a relayed request, so two replicas that briefly disagree on the leader never bounce it between them. */
const RELAYED = 'x-gantry-relayed';

export interface PodProxyDeps {
  pods: PodService;
  apiKeys: ApiKeyService;
  rateLimiter: RateLimiter;
  failedAuth: FailedAuthLimiter;
  /** An open WebSocket with no traffic this long is closed. */
  tunnelIdleMs: number;
  /** With several replicas, the one that runs pods when it is not this one. */
  leaderAddress: () => HttpAddress | undefined;
}

/** A pod's own answer may take long (a notebook cell): bounded only by the client. */
const POD_TIMEOUT_MS = 86_400_000;

export class PodProxy {
  private readonly connections = workerConnections();

  constructor(private readonly deps: PodProxyDeps) {}

  /** The leader a pod request is passed to when this replica does not run pods. */
  relayTarget(req: IncomingMessage): HttpAddress | undefined {
    if (!POD_ROUTES.test(req.url ?? '/') || req.headers[RELAYED] !== undefined) return undefined;
    const leader = this.deps.leaderAddress();
    if (leader) req.headers[RELAYED] = '1';
    return leader;
  }

  /** Passes a pod request on to the leader, key included: it authenticates the caller itself. */
  relay(req: IncomingMessage, res: ServerResponse, leader: HttpAddress): Promise<void> {
    const path = req.url ?? '/';
    return forward(req, res, {
      address: leader,
      path,
      timeoutMs: POD_TIMEOUT_MS,
      dispatcher: this.connections,
      responseHeaders: {},
      keepAuthorization: true,
      onWorkerFailure: () => undefined,
      upstream: 'the replica that runs pods',
    });
  }

  relayUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, leader: HttpAddress): Promise<void> {
    socket.on('error', () => socket.destroy());
    return forwardUpgrade(req, socket, head, {
      address: leader,
      path: req.url ?? '/',
      timeoutMs: 30_000,
      idleMs: this.deps.tunnelIdleMs,
      responseHeaders: {},
      keepAuthorization: true,
    });
  }

  match(req: IncomingMessage): PodTarget | undefined {
    const match = POD_PROXY_PATTERN.exec(req.url ?? '/');
    if (!match) return undefined;
    const rest = match[3] ?? '/';
    return { podId: match[1]!, port: Number(match[2]), path: rest.startsWith('/') ? rest : `/${rest}` };
  }

  async handle(req: IncomingMessage, res: ServerResponse, target: PodTarget): Promise<void> {
    let headers: Record<string, string> = {};
    try {
      const admitted = await this.admit(req, target);
      headers = admitted.headers;
      await forward(req, res, {
        address: admitted.address,
        path: target.path,
        timeoutMs: POD_TIMEOUT_MS,
        dispatcher: this.connections,
        responseHeaders: headers,
        onWorkerFailure: () => undefined,
        upstream: `pod ${target.podId}'s port ${target.port}`,
      });
    } catch (err) {
      const problem = err instanceof ApiError ? err : unexpectedProblem(err);
      if (res.destroyed) return;
      if (res.headersSent) res.destroy();
      else sendRawProblem(res, problem, headers);
    }
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: PodTarget): Promise<void> {
    socket.on('error', () => socket.destroy());
    let headers: Record<string, string> = {};
    try {
      const admitted = await this.admit(req, target);
      headers = admitted.headers;
      await forwardUpgrade(req, socket, head, {
        address: admitted.address,
        path: target.path,
        timeoutMs: 30_000,
        idleMs: this.deps.tunnelIdleMs,
        responseHeaders: headers,
      });
    } catch (err) {
      writeSocketProblem(socket, err instanceof ApiError ? err : unexpectedProblem(err), headers);
    }
  }

  close(): void {
    void this.connections.destroy().catch(() => undefined);
  }

  private async admit(req: IncomingMessage, target: PodTarget): Promise<{ address: HttpAddress; headers: Record<string, string> }> {
    const { apiKeys, rateLimiter, failedAuth, pods } = this.deps;
    const { key, headers } = await failedAuth.guard(req, () => authenticateKey(apiKeys, rateLimiter, req.headers.authorization, 'bearer'));
    try {
      authorise(key, req.method ?? 'GET', undefined, 'bearer');
      const pod = await pods.get(key.accountId, target.podId);
      if (!podPorts(pod.spec.ports).some((p) => p.port === target.port && p.protocol === 'http'))
        throw notFound(`pod ${pod.id} exposes no HTTP port ${target.port} (its ports: ${pod.spec.ports.join(', ') || 'none'})`);
      const published = pods
        .engine()
        .running(pod.id)
        ?.ports.find((p) => p.private === target.port && p.public !== null);
      if (pod.status !== 'RUNNING') throw conflict(`pod ${pod.id} is ${pod.status}: its ports are reached while it runs`);
      if (!published) {
        throw conflict(`port ${target.port} was added after pod ${pod.id} started: it is published at its next start (restart the pod)`);
      }
      const address = { host: published.ip === '0.0.0.0' || !published.ip ? '127.0.0.1' : published.ip, port: published.public! };
      return { address: { ...address, healthPort: address.port }, headers };
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.status, err.message, err.errors, { ...headers, ...err.headers });
      throw err;
    }
  }
}
