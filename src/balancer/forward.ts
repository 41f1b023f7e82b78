// Passes one HTTP request to a worker and its response back, streaming both ways: bodies are
// piped, never buffered, so uploads, chunked answers and server-sent events flow as they come.
// A worker that fails before answering gives 502, one too slow gives 504; once the answer has
// started, the only honest signal left is to cut the client's connection.
import { request, type Agent, type ClientRequest, type IncomingMessage, type ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import { ApiError } from '../domain/errors.js';
import { sendRawProblem } from '../http/raw-problem.js';
import type { HttpAddress } from '../domain/workers.js';
import { connectionValuesOf, hopByHopNames, withoutHeaders } from './hop-by-hop.js';

export interface ForwardRequest {
  address: HttpAddress;
  path: string;
  timeoutMs: number;
  agent: Agent;
  /** Added to the response (rate-limit headers). */
  responseHeaders: Record<string, string>;
  /** The worker broke the connection: it should get no more requests until its health check says otherwise. */
  onWorkerFailure: (reason: string) => void;
  /** Relaying to the replica that runs the workers: it authenticates the caller itself. */
  keepAuthorization?: boolean;
}

/** The headers a worker receives: the client's, minus hop-by-hop ones and the API key, plus X-Forwarded-*. */
export function upstreamHeaders(req: IncomingMessage, keepUpgrade = false, keepAuthorization = false): OutgoingHttpHeaders {
  const hopByHop = hopByHopNames(connectionValuesOf(req.rawHeaders), keepUpgrade);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if ((name === 'authorization' && !keepAuthorization) || hopByHop.has(name)) continue;
    headers[name] = value;
  }
  // An upgrade passes on as `connection: upgrade` alone, without the options it named.
  if (keepUpgrade && headers.connection !== undefined) headers.connection = 'upgrade';
  const client = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
  if (req.headers.host !== undefined) headers['x-forwarded-host'] = req.headers.host;
  headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  return headers;
}

/** Response headers as a flat list, hop-by-hop ones removed (node frames the body itself). */
export function downstreamHeaders(raw: string[], extra: Record<string, string>): string[] {
  const out = withoutHeaders(raw, hopByHopNames(connectionValuesOf(raw)));
  for (const [name, value] of Object.entries(extra)) out.push(name, value);
  return out;
}

/** A request without a body can be sent again as it is. */
function bodiless(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] ?? '0') === '0';
}

/** Resolves once the client's response is over, however it ended. */
export function forward(req: IncomingMessage, res: ServerResponse, target: ForwardRequest): Promise<void> {
  return new Promise((resolve) => {
    const { address, path, timeoutMs, agent } = target;
    let upstream: ClientRequest;
    res.once('close', () => {
      clearTimeout(timer);
      // The client left (or the answer ended): nothing more to fetch.
      if (!upstream.destroyed && !res.writableFinished) upstream.destroy();
      resolve();
    });
    const fail = (problem: ApiError) => {
      if (res.headersSent) res.destroy();
      else sendRawProblem(res, problem, target.responseHeaders);
    };
    const timer = setTimeout(() => {
      fail(new ApiError(504, `the worker did not finish within the endpoint's timeout of ${timeoutMs} ms`));
      upstream.destroy();
    }, timeoutMs);

    const send = (retried: boolean) => {
      upstream = request({
        host: address.host,
        port: address.port,
        method: req.method,
        path,
        headers: upstreamHeaders(req, false, target.keepAuthorization),
        agent,
      });
      upstream.on('socket', (socket) => socket.setNoDelay(true));
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (res.writableEnded || res.destroyed) return;
        // A kept-alive connection the worker closed just as it was reused: the request never
        // reached the worker, so one without a body is simply sent again on a fresh connection.
        if (upstream.reusedSocket && err.code === 'ECONNRESET' && !retried && bodiless(req)) return send(true);
        if (!upstream.reusedSocket) target.onWorkerFailure(`a request failed: ${err.code ?? err.message}`);
        fail(new ApiError(502, `the worker failed before answering: ${err.code ?? err.message}`));
      });
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, downstreamHeaders(answer.rawHeaders, target.responseHeaders));
        answer.pipe(res);
        // A worker that dies mid-answer leaves the answer incomplete: cut the client off rather than end it cleanly.
        answer.on('close', () => {
          if (answer.complete || res.destroyed) return;
          target.onWorkerFailure('it broke off an answer');
          res.destroy();
        });
      });
      if (retried) upstream.end();
      else req.pipe(upstream);
    };
    send(false);
  });
}
