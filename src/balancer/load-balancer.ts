// The front door of load-balancing endpoints: authenticates the caller as for queue operations,
// finds the endpoint, answers its health path with the balancer's own view, and passes every
// other request to the ready worker with the fewest outstanding requests — holding it a while
// when none has room.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GantryConfig } from '../config.js';
import type { EndpointRecord } from '../store/store.js';
import type { JobService } from '../services/jobs.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { RateLimiter } from '../cluster/rate-limiter.js';
import type { WorkerDirectory } from '../services/worker-directory.js';
import type { GantryMetrics } from '../services/metrics.js';
import { ApiError, badRequest, notFound } from '../domain/errors.js';
import { httpWorkerSettings } from '../domain/http-worker.js';
import { authenticateKey, authorise } from '../http/auth.js';
import type { FailedAuthLimiter } from '../http/failed-auth-limiter.js';
import { unexpectedProblem } from '../http/problem.js';
import type { Backends, Backend } from '../runtime/http-backends.js';
import { LbRouter, type LbTarget } from './routing.js';
import { forward, workerConnections } from './forward.js';
import { forwardUpgrade } from './upgrade.js';
import { sendRawProblem, writeSocketProblem } from '../http/raw-problem.js';
import type { HttpAddress } from '../domain/workers.js';
import type { Logger } from '../domain/logger.js';

export interface LoadBalancerDeps {
  config: GantryConfig;
  jobs: Pick<JobService, 'endpointOf'>;
  apiKeys: ApiKeyService;
  rateLimiter: RateLimiter;
  failedAuth: FailedAuthLimiter;
  backends: Backends;
  workerDirectory: WorkerDirectory;
  metrics: Pick<GantryMetrics, 'lbRequestFinished'>;
  /** With several replicas, the one that runs the workers when it is not this one. */
  leaderAddress: () => HttpAddress | undefined;
  log: Logger;
}

/** A relayed request is bounded by the leader, which applies the endpoint's timeout and hold. */
const RELAY_TIMEOUT_MS = 86_400_000;
/** Marks a relayed request, so two replicas that briefly disagree on the leader never bounce it between them. */
const RELAYED = 'x-gantry-relayed';

function relayTarget(req: IncomingMessage, deps: LoadBalancerDeps): HttpAddress | undefined {
  if (req.headers[RELAYED] !== undefined) return undefined;
  const leader = deps.leaderAddress();
  if (leader) req.headers[RELAYED] = '1';
  return leader;
}

/** Seconds a client is told to wait after a 503. */
const RETRY_AFTER_SECONDS = 5;

interface Admitted {
  endpoint: EndpointRecord;
  /** Rate-limit headers for the response. */
  headers: Record<string, string>;
}

export class LoadBalancer {
  private readonly router: LbRouter;
  private readonly connections = workerConnections();
  /** Upgrade connections from the moment they arrive: the HTTP server stops tracking them once upgraded. */
  private readonly upgraded = new Set<Duplex>();
  private closed = false;

  constructor(private readonly deps: LoadBalancerDeps) {
    this.router = new LbRouter(() => deps.config);
  }

  match(req: IncomingMessage): LbTarget | undefined {
    return this.router.match(req);
  }

  async handle(req: IncomingMessage, res: ServerResponse, target: LbTarget): Promise<void> {
    let headers: Record<string, string> = {};
    // Only the leader runs workers: another replica passes the request on untouched, key included.
    const leader = relayTarget(req, this.deps);
    if (leader) {
      const relay = {
        address: leader,
        path: req.url ?? '/',
        timeoutMs: RELAY_TIMEOUT_MS,
        dispatcher: this.connections,
        responseHeaders: {},
        keepAuthorization: true,
      };
      return forward(req, res, { ...relay, onWorkerFailure: () => undefined });
    }
    const arrived = process.hrtime.bigint();
    try {
      const admitted = await this.admit(req, target);
      headers = admitted.headers;
      const { endpoint } = admitted;
      res.once('close', () =>
        this.deps.metrics.lbRequestFinished(endpoint.id, res.statusCode, Number(process.hrtime.bigint() - arrived) / 1e9),
      );
      if (this.isHealthCheck(req, target, endpoint)) return this.sendHealth(res, endpoint, headers);
      const backend = await this.backendFor(endpoint, res);
      try {
        await forward(req, res, {
          address: backend.address,
          path: target.path,
          timeoutMs: endpoint.spec.timeout,
          dispatcher: this.connections,
          responseHeaders: headers,
          onWorkerFailure: (reason) => this.deps.backends.setHealth(backend, 'UNHEALTHY', reason),
        });
      } finally {
        this.deps.backends.release(backend);
      }
    } catch (err) {
      this.fail(err, headers, (problem, extra) => {
        if (res.destroyed) return;
        if (res.headersSent) res.destroy();
        else sendRawProblem(res, problem, extra);
      });
    }
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: LbTarget): Promise<void> {
    socket.on('error', () => socket.destroy());
    if (this.closed) return void socket.destroy();
    this.upgraded.add(socket);
    socket.once('close', () => this.upgraded.delete(socket));
    const leader = relayTarget(req, this.deps);
    if (leader) {
      const relay = {
        address: leader,
        path: req.url ?? '/',
        timeoutMs: RELAY_TIMEOUT_MS,
        idleMs: this.deps.config.lbTunnelIdleMs,
        responseHeaders: {},
        keepAuthorization: true,
      };
      return forwardUpgrade(req, socket, head, relay);
    }
    let headers: Record<string, string> = {};
    try {
      const admitted = await this.admit(req, target);
      headers = admitted.headers;
      const backend = await this.backendFor(admitted.endpoint, socket);
      try {
        await forwardUpgrade(req, socket, head, {
          address: backend.address,
          path: target.path,
          timeoutMs: admitted.endpoint.spec.timeout,
          idleMs: this.deps.config.lbTunnelIdleMs,
          responseHeaders: headers,
        });
      } finally {
        this.deps.backends.release(backend);
      }
    } catch (err) {
      this.fail(err, headers, (problem, extra) => writeSocketProblem(socket, problem, extra));
    }
  }

  /**
   * Ends every pass-through connection and refuses new ones. The HTTP server does not track
   * upgraded connections, and would wait for ever on a tunnel whose ends never close.
   */
  close(): void {
    this.closed = true;
    for (const socket of this.upgraded) socket.destroy();
    void this.connections.destroy().catch(() => undefined);
  }

  /** The caller's key may use this endpoint, and the endpoint is a load balancer. */
  private async admit(req: IncomingMessage, target: LbTarget): Promise<Admitted> {
    const { apiKeys, rateLimiter, jobs, failedAuth } = this.deps;
    const { key, headers } = await failedAuth.guard(req, () => authenticateKey(apiKeys, rateLimiter, req.headers.authorization, 'queue'));
    try {
      authorise(key, req.method ?? 'GET', target.endpointId, 'queue');
      const endpoint = await jobs.endpointOf(key.accountId, target.endpointId);
      if (!endpoint) throw notFound(`endpoint ${target.endpointId} not found`);
      if (endpoint.spec.type !== 'LOAD_BALANCER') {
        throw badRequest(
          `endpoint ${target.endpointId} is a QUEUE endpoint; it serves no worker-defined paths (submit jobs to /v2/${target.endpointId}/run or /runsync)`,
        );
      }
      return { endpoint, headers };
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.status, err.message, err.errors, { ...headers, ...err.headers });
      throw err;
    }
  }

  /** A ready worker with room, waiting for one up to the hold time (or until the client leaves); 503 when none comes. */
  private async backendFor(endpoint: EndpointRecord, client: { once(event: 'close', listener: () => void): unknown }): Promise<Backend> {
    const { spec } = endpoint;
    const unavailable = (detail: string) => new ApiError(503, detail, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
    if (spec.workers.max === 0) throw unavailable(`endpoint ${endpoint.id} has workers.max 0: no worker can serve it`);
    const limit = spec.scaling.type === 'REQUEST_COUNT' ? spec.scaling.requestCount : 1;
    const free = this.deps.backends.tryAcquire(endpoint.id, limit);
    if (free) return free;
    const gone = new AbortController();
    client.once('close', () => gone.abort());
    const holdMs = this.deps.config.lbHoldMs;
    const backend = await this.deps.backends.acquire(endpoint.id, limit, holdMs, gone.signal);
    // Let go early because the endpoint was deleted meanwhile: not a reason to come back.
    if (backend === 'deleted') throw notFound(`endpoint ${endpoint.id} was deleted`);
    if (backend) return backend;
    throw unavailable(`no worker of endpoint ${endpoint.id} was ready with room for the request within ${holdMs} ms`);
  }

  private isHealthCheck(req: IncomingMessage, target: LbTarget, endpoint: EndpointRecord): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    return target.path.split('?')[0] === httpWorkerSettings(endpoint.spec).healthPath;
  }

  /** The balancer's view: how many workers are ready, starting or unhealthy, and the requests it holds. */
  private sendHealth(res: ServerResponse, endpoint: EndpointRecord, headers: Record<string, string>): void {
    const counts = this.deps.workerDirectory.counts(endpoint.id, endpoint.version);
    const demand = this.deps.backends.demand(endpoint.id);
    const body = JSON.stringify({
      workers: {
        ready: counts.ready,
        idle: counts.idle,
        running: counts.running,
        initializing: counts.initializing,
        throttled: counts.throttled,
        unhealthy: counts.unhealthy,
      },
      requests: { inFlight: demand.inFlight, held: demand.held },
    });
    res.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private fail(err: unknown, headers: Record<string, string>, send: (problem: ApiError, headers: Record<string, string>) => void): void {
    if (err instanceof ApiError) return send(err, headers);
    this.deps.log.warn({ err }, 'load-balanced request failed');
    send(unexpectedProblem(err), headers);
  }
}
