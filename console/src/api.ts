// Every call the console makes goes through the public API with the signed-in key.
import { online, session } from './state';

/** A problem+json answer: `errors` lists "field.path: message" lines. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: string[] = [],
  ) {
    super(detail || title);
  }
}

/** The server could not be reached at all. */
export class Offline extends Error {}

/** An API path whose values are each encoded as one path segment: an id from the page's URL cannot climb out of it. */
export function apiPath(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((path, part, i) => path + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

export function authHeader(key = session.get()?.key): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { ...authHeader(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    online.set(false);
    throw new Offline('the server cannot be reached');
  }
  if (!online.get()) online.set(true);
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  if (!res.ok) {
    const p = (json ?? {}) as { title?: string; detail?: string; errors?: string[] };
    // A key revoked or expired while signed in ends the session.
    if (res.status === 401 && key === undefined) session.set(null);
    throw new Problem(res.status, p.title ?? res.statusText, p.detail ?? text, p.errors ?? []);
  }
  return json as T;
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
