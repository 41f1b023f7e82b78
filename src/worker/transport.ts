// HTTP calls of a worker: the credential goes raw in Authorization (no Bearer), bodies are JSON,
// every call has a deadline, and result posts are retried on 5xx and network errors (never on
// 4xx, which will not get better by asking again).
import { deadline, pause } from './timing.js';
import { exchange } from './http-request.js';

export interface Answer {
  status: number;
  body: unknown;
}

export interface TransportTimings {
  /** Between attempts of a post: retryDelayMs, then twice that, then four times. */
  retryDelayMs: number;
  retries: number;
  postTimeoutMs: number;
}

const DEFAULT_TIMINGS: TransportTimings = { retryDelayMs: 200, retries: 3, postTimeoutMs: 60_000 };

export class Transport {
  private readonly timings: TransportTimings;

  constructor(
    private readonly credential: string,
    timings: Partial<TransportTimings> = {},
  ) {
    this.timings = { ...DEFAULT_TIMINGS, ...timings };
  }

  /** GET with a deadline; a 200 body is parsed as JSON, anything else is left undefined. */
  async get(url: string, timeoutMs: number, signal?: AbortSignal): Promise<Answer> {
    const limit = deadline(timeoutMs, signal);
    try {
      const { status, text } = await exchange(url, { method: 'GET', headers: { authorization: this.credential }, signal: limit.signal });
      return { status, body: status === 200 && text.trim() !== '' ? (JSON.parse(text) as unknown) : undefined };
    } finally {
      limit.release();
    }
  }

  /**
   * POSTs JSON and answers the final status; 5xx and network errors are retried. Throws only when
   * the last attempt failed on the network.
   */
  async post(url: string, body: unknown): Promise<number> {
    return (await this.postForAnswer(url, body)).status;
  }

  /** As `post`, answering the final status and its body (JSON when it parses, else undefined). */
  async postForAnswer(url: string, body: unknown): Promise<Answer> {
    const payload = JSON.stringify(body);
    const { retries, retryDelayMs } = this.timings;
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await this.postOnce(url, payload);
        if (answer.status < 500 || attempt >= retries) return answer;
      } catch (error) {
        if (attempt >= retries) throw error;
      }
      await pause(retryDelayMs * 2 ** attempt);
    }
  }

  /** One POST of a JSON payload, never retried: for an exchange that must not happen twice. */
  async postOnce(url: string, payload: string): Promise<Answer> {
    const limit = deadline(this.timings.postTimeoutMs);
    try {
      const { status, text } = await exchange(url, {
        method: 'POST',
        headers: { authorization: this.credential, 'content-type': 'application/json' },
        body: payload,
        signal: limit.signal,
      });
      return { status, body: parseOrUndefined(text) };
    } finally {
      limit.release();
    }
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
