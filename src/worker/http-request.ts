// One HTTP exchange over node's own client, on keep-alive connections. The worker makes a few
// requests per job; global fetch costs several times more CPU per request, and aborting one of its
// long-polls closes the connection, so the next request pays for a new one.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface Exchange {
  status: number;
  text: string;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** Sends the request and reads the whole answer; rejects on network errors and when `signal` aborts. */
export function exchange(
  url: string,
  options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal.aborted) return reject(abortError(signal));
    const secure = url.startsWith('https:');
    const headers =
      options.body === undefined ? options.headers : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
    const send = secure ? httpsRequest : httpRequest;
    const req = send(url, { method: options.method, headers, agent: secure ? agents.https : agents.http });
    const onAbort = () => req.destroy(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal.removeEventListener('abort', onAbort);
    req.on('error', (error) => {
      settle();
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        settle();
        reject(error);
      });
      res.on('end', () => {
        settle();
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end(options.body);
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the request was aborted');
}
