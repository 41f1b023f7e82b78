// Server-sent events over fetch, so the key goes in the Authorization header (EventSource cannot
// send one). Reconnects with back-off, resuming after the last event id it saw.
import { authHeader } from './api';
import { online } from './state';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Following, or trying to again; `ended` says why it will not try again (a 4xx: gone, or not allowed). */
export type SseState = 'following' | 'reconnecting' | { ended: string };

export function followSse(url: string, onEvent: (e: SseEvent) => void, onState: (state: SseState) => void): () => void {
  const abort = new AbortController();
  let lastId: string | undefined;
  let delay = 500;
  const connect = async () => {
    while (!abort.signal.aborted) {
      try {
        const res = await fetch(url, {
          headers: { ...authHeader(), accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: abort.signal,
        });
        online.set(true);
        // Asking again would get the same answer: the worker is gone, or the key may not see it.
        if (res.status >= 400 && res.status < 500 && res.status !== 429) return onState({ ended: `the server answered ${res.status}` });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        onState('following');
        delay = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event: SseEvent = { event: 'message', data: '' };
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) event.id = line.slice(4);
              else if (line.startsWith('event: ')) event.event = line.slice(7);
              else if (line.startsWith('data: ')) event.data += line.slice(6);
            }
            if (event.id) lastId = event.id;
            if (event.data) onEvent(event);
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(30_000, delay * 2);
    }
  };
  void connect();
  return () => abort.abort();
}
