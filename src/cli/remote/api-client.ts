// Calls a running Gantry's REST and queue APIs, and turns every way a call can fail into a
// message a person can act on: an unreachable server, a refused key, or the problem+json the
// API answers with (its title, detail and each field error).
import { CliError, EXIT_USAGE } from '../options.js';
import { resolveConnection, type Connection, type ConnectionFlags } from './connection.js';

/** The shape of Gantry's error answers (application/problem+json). */
interface Problem {
  title?: string;
  status?: number;
  detail?: string;
  errors?: string[];
}

/**
 * An id or name as one path segment. `.` and `..` would be resolved away by the URL (`get .` read
 * the whole list as if it were one resource), and an empty one names nothing: refused as usage.
 */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw new CliError(`'${value}' is not an id`, EXIT_USAGE);
  return encodeURIComponent(value);
}

const HINT_URL = 'point the CLI at it with --url, GANTRY_URL or gantry login';
const HINT_KEY = 'give a valid key with --api-key, GANTRY_API_KEY or gantry login';

/** An error answer of the API: its HTTP status and a message made of its problem+json. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    /** A 429's Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The server could not be reached (down, restarting): worth trying again for a while. */
export class Unreachable extends CliError {}

/** The server took the request and did not answer in time: asking again would wait as long again. */
export class Unanswered extends CliError {}

/** The longest rate-limit wait a keyed call sits out: a minute window's; an hour's or a day's stops the run. */
export const LONGEST_RATE_WAIT_SECONDS = 60;

/** How long a call waits for the server to start answering, beyond a `wait=` it asks the server for. */
export const ANSWER_TIMEOUT_MS = 30_000;

export class ApiClient {
  constructor(
    readonly connection: Connection & { apiKey: string },
    private readonly answerTimeoutMs = ANSWER_TIMEOUT_MS,
  ) {}

  /** Sends `body` as JSON and answers the parsed JSON (undefined for an empty answer such as 204). */
  async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.send(method, path, body, headers);
    const text = await res.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(
        `${this.connection.url}${path} answered ${res.status} with something that is not JSON: is ${this.connection.url} a Gantry server?`,
      );
    }
  }

  /**
   * As call, for a request that is safe to send again because it carries an Idempotency-Key: sent
   * again (up to `tries` times in all, pausing longer each time) while it gets no answer or a 5xx,
   * and after a 429's Retry-After when that is at most `longestWaitSeconds`, a minute unless given
   * (`waiting` is told first).
   */
  async callWithKey<T>(
    method: string,
    path: string,
    body: unknown,
    key: string,
    options: { tries?: number; pauseMs?: number; longestWaitSeconds?: number; waiting?: (seconds: number) => void } = {},
  ): Promise<T> {
    const { tries = 3, pauseMs = 500, longestWaitSeconds = LONGEST_RATE_WAIT_SECONDS, waiting } = options;
    for (let attempt = 1; ;) {
      try {
        return await this.call<T>(method, path, body, { 'idempotency-key': key });
      } catch (error) {
        const wait = error instanceof ApiError && error.status === 429 ? error.retryAfterSeconds : undefined;
        if (wait !== undefined && wait <= longestWaitSeconds) {
          // A full window is not a failure: the same request is admitted once it resets.
          waiting?.(wait);
          await pause(wait * 1000);
          continue;
        }
        const again = error instanceof Unreachable || (error instanceof ApiError && error.status >= 500);
        if (!again || attempt >= tries) throw error;
        await pause(pauseMs * 2 ** (attempt - 1));
        attempt++;
      }
    }
  }

  /** The raw answer of a successful call, for streams the caller reads as they come. */
  async open(path: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    return this.send('GET', path, undefined, headers, signal);
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const url = `${this.connection.url}${path}`;
    // Bounded until the answer starts, not while a stream is read: a hung server is named, not waited on.
    const limitMs = Number(/[?&]wait=(\d+)/.exec(path)?.[1] ?? 0) + this.answerTimeoutMs;
    const late = new AbortController();
    const timer = setTimeout(() => late.abort(), limitMs);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.connection.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, late.signal]) : late.signal,
      });
    } catch (error) {
      if (late.signal.aborted) {
        throw new Unanswered(`Gantry at ${this.connection.url} (${this.connection.urlSource}) did not answer within ${limitMs / 1000} s`);
      }
      if ((error as Error).name === 'AbortError') throw error;
      throw new Unreachable(
        `cannot reach Gantry at ${this.connection.url} (${this.connection.urlSource}): ${networkReason(error)}. Is the server running? If it listens elsewhere, ${HINT_URL}`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) throw await this.failure(res);
    return res;
  }

  private async failure(res: Response): Promise<ApiError> {
    const text = await res.text();
    const problem = parseProblem(text);
    const detail = problem?.detail ?? (text.trim().slice(0, 300) || res.statusText);
    if (res.status === 401) {
      return new ApiError(
        `the server at ${this.connection.url} refused the API key from ${this.connection.apiKeySource} (401: ${detail}); ${HINT_KEY}`,
        401,
      );
    }
    const lines = [`${problem?.title ?? res.statusText} (${res.status}): ${detail}`];
    for (const error of problem?.errors ?? []) lines.push(`  - ${error}`);
    const retryAfter = res.headers.get('retry-after');
    if (res.status === 429 && retryAfter) lines.push(`  retry after ${retryAfter} s`);
    const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return new ApiError(lines.join('\n'), res.status, seconds);
  }
}

/** A client for the connection the flags, environment and login file give; without a key, a usage error. */
export function clientFrom(flags: ConnectionFlags): ApiClient {
  const connection = resolveConnection(flags);
  const { apiKey } = connection;
  if (!apiKey) throw new CliError('no API key: give --api-key, set GANTRY_API_KEY or run gantry login', EXIT_USAGE);
  return new ApiClient({ ...connection, apiKey });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a waiting verb keeps trying while the server cannot be reached (a restart, say). */
export const RECONNECT_FOR_MS = 60_000;

/**
 * Runs `work` again, a second apart, while no answer comes or the server answers 502-504 (a
 * restart, a proxy without a server behind), for up to RECONNECT_FOR_MS; `retrying` is told why.
 */
export async function whileReachable<T>(work: () => Promise<T>, retrying?: (why: string) => void): Promise<T> {
  let since: number | undefined;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      const passing = error instanceof Unreachable || (error instanceof ApiError && error.status >= 502 && error.status <= 504);
      since ??= Date.now();
      if (!passing || Date.now() - since > RECONNECT_FOR_MS) throw error;
      retrying?.((error as Error).message.split('\n')[0]!);
      await pause(1000);
    }
  }
}

function parseProblem(text: string): Problem | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Problem) : undefined;
  } catch {
    return undefined;
  }
}

/** fetch hides the socket's error code in `cause`; it is the useful part (ECONNREFUSED, ENOTFOUND...). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
