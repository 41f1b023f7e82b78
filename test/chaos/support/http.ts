// HTTP calls that never throw: a refused or cut connection is an answer with status 0, because
// the scenarios count those as outcomes rather than failing on the first one.

export interface Answer {
  /** 0 when there was no HTTP answer at all (refused, reset, timed out). */
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  /** Why there was no answer, when status is 0. */
  error?: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** Aborts the call early (e.g. a worker that is made to die mid long-poll). */
  signal?: AbortSignal;
}

export async function request(url: string, options: RequestOptions = {}): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
      signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs ?? 15_000), ...(options.signal ? [options.signal] : [])]),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, headers: new Headers(), text: '', json: undefined, error: cause ?? (error as Error).message };
  }
}

/** A JSON call with an API key as a Bearer token. */
export function callJson(base: string, key: string, method: string, path: string, body?: unknown, timeoutMs?: number): Promise<Answer> {
  return request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs,
  });
}

/** Short text for a report line: status, content type and the start of the body. */
export function describeAnswer(answer: Answer): string {
  if (answer.status === 0) return `no answer (${answer.error ?? 'unknown'})`;
  return `${answer.status} ${answer.headers.get('content-type') ?? '(no content-type)'} ${answer.text.slice(0, 160)}`;
}
