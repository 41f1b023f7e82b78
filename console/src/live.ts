// Polling with back-off: a view refreshes every `intervalMs`; while calls fail it waits longer
// (up to 30 s), and the connection banner shows until a call gets through again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Offline } from './api';

const MAX_BACKOFF_MS = 30_000;

export interface Polled<T> {
  data: T | undefined;
  error: unknown;
  reload: () => void;
}

export function usePoll<T>(load: () => Promise<T>, intervalMs: number, deps: unknown[] = []): Polled<T> {
  // Data is kept with the deps it was loaded for: new deps never show the old answer.
  const depsKey = JSON.stringify(deps);
  const [loaded, setData] = useState<{ key: string; value: T } | undefined>(undefined);
  const data = loaded?.key === depsKey ? loaded.value : undefined;
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = intervalMs;
    const run = async () => {
      try {
        const value = await loadRef.current();
        if (stopped) return;
        setData({ key: depsKey, value });
        setError(undefined);
        delay = intervalMs;
      } catch (e) {
        if (stopped) return;
        setError(e);
        delay = e instanceof Offline ? Math.min(MAX_BACKOFF_MS, delay * 2) : intervalMs;
      }
      if (!stopped && intervalMs > 0) timer = setTimeout(() => void run(), delay);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [intervalMs, tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}
