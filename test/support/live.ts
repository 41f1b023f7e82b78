// A Gantry server on a real socket with a queue endpoint and a worker credential, plus a
// minimal protocol-level worker client for tests that need exact control of what a worker sends.
import { startHarness, type Harness, type HarnessOptions } from './harness.js';
import type { ConfigFlags } from '../../src/config.js';
import { reservePort } from '../../src/reserve-port.js';
import { queueEndpointBody } from './endpoint-bodies.js';

export interface Live extends Harness {
  url: string;
  endpointId: string;
  workerKey: string;
  /** Calls the queue API with the admin key (or `key`), raw Authorization value unless `bearer`, and any `headers`. */
  queue(
    method: string,
    path: string,
    body?: unknown,
    key?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; headers: Headers }>;
  worker(method: string, path: string, body?: string, contentType?: string, key?: string): Promise<{ status: number; json: any }>;
}

export async function startLive(
  flags: ConfigFlags = {},
  endpoint: Record<string, unknown> = {},
  options: HarnessOptions = {},
): Promise<Live> {
  // The configuration names the port (workers are sent to it), so it is known before the harness is built.
  const reservation = await reservePort('127.0.0.1');
  const port = reservation.port;
  const h = await startHarness(
    {
      port: String(port),
      lbUrlPattern: `http://{id}.lb.localhost:${port}`,
      takeWaitMs: '1500',
      streamWaitMs: '300',
      sweepIntervalMs: '50',
      webhookAllowCidrs: '127.0.0.0/8',
      // Workers are started by the tests themselves unless a test asks for the runtime.
      workerProvider: 'none',
      ...flags,
    },
    {},
    options,
  ).catch(async (error: unknown) => {
    await reservation.release();
    throw error;
  });
  // As the server does (src/server.ts): loaded first, so the port is free only until the bind.
  await h.app.ready();
  await reservation.release();
  await h.app.listen({ port, host: '127.0.0.1' });
  await h.services.start();
  const url = `http://127.0.0.1:${port}`;
  const created = await h.call('POST', '/v2/serverless', queueEndpointBody('queue-test', endpoint));
  if (created.statusCode !== 201) throw new Error(`endpoint create failed: ${created.body}`);
  const endpointId = created.json().id as string;
  const workerKey = await h.services.workerCredentials.create(endpointId);
  const request = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json, headers: res.headers };
  };
  return {
    ...h,
    url,
    endpointId,
    workerKey,
    queue: (method, path, body, key = h.adminKey, headers = {}) =>
      request(
        method,
        `/v2/${endpointId}${path}`,
        { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body === undefined ? undefined : JSON.stringify(body),
      ),
    worker: (method, path, body, contentType = 'application/x-www-form-urlencoded', key = workerKey) =>
      request(
        method,
        `/v2/${endpointId}${path}`,
        { authorization: key, ...(body === undefined ? {} : { 'content-type': contentType }) },
        body,
      ),
  };
}

export interface RunsyncAnswer {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
}

/** Runs a job on any endpoint of `g` with the admin key and waits (a minute at most) for its result. */
export async function runsync(g: Live, endpointId: string, input: unknown): Promise<RunsyncAnswer> {
  const res = await fetch(`${g.url}/v2/${endpointId}/runsync?wait=60000`, {
    method: 'POST',
    headers: { authorization: g.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return (await res.json()) as RunsyncAnswer;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns something truthy or the time runs out. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 5000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

/** Repeats `check` until it stops throwing; past the time, its last failure is the test's. */
export async function settles(check: () => Promise<void>, timeoutMs = 5000, stepMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(stepMs);
    }
  }
}
