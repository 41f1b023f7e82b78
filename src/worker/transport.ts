// HTTP calls of a worker: the credential goes raw in Authorization, bodies are JSON, and
// posts are retried on 5xx and network errors (never on 4xx, which will not get better).

export interface Answer {
  status: number;
  body: unknown;
}

export class Transport {
  constructor(
    private readonly credential: string,
    private readonly retryDelayMs = 200,
  ) {}

  async get(url: string, signal?: AbortSignal): Promise<Answer> {
    const res = await fetch(url, { headers: { authorization: this.credential }, signal });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  /** POSTs JSON, retrying up to three more times on 5xx or a network error. */
  async post(url: string, body: unknown, signal?: AbortSignal): Promise<number> {
    const payload = JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: this.credential, 'content-type': 'application/json' },
          body: payload,
          signal,
        });
        await res.arrayBuffer();
        if (res.status < 500 || attempt >= 3) return res.status;
      } catch (error) {
        if (signal?.aborted || attempt >= 3) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs * 2 ** attempt));
    }
  }
}
