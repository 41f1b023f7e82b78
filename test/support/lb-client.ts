// A plain node HTTP client for load-balancing endpoints: it can set the Host header (fetch
// cannot), send streamed bodies and read answers as they arrive.
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface LbCall {
  /** Gantry's address, e.g. http://127.0.0.1:1234 */
  url: string;
  path: string;
  method?: string;
  host?: string;
  headers?: Record<string, string>;
  body?: string | Readable;
}

export interface LbAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** Starts the request and resolves with the response as soon as its head arrives. */
export function open(call: LbCall): Promise<IncomingMessage> {
  const target = new URL(call.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: call.method ?? 'GET',
        path: call.path,
        headers: { ...(call.host ? { host: call.host } : {}), ...call.headers },
      },
      resolve,
    );
    req.on('error', reject);
    if (call.body === undefined) req.end();
    else if (typeof call.body === 'string') req.end(call.body);
    else call.body.pipe(req);
  });
}

export async function read(res: IncomingMessage): Promise<LbAnswer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, json };
}

export async function lbFetch(call: LbCall): Promise<LbAnswer> {
  return read(await open(call));
}
