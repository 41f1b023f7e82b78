// Tiny observable stores and the console's shared state: the session (key kept in sessionStorage
// only), the route, the theme and whether the server is reachable.
import { useEffect, useState } from 'preact/hooks';

export interface Store<T> {
  get(): T;
  set(value: T): void;
  subscribe(listener: (value: T) => void): () => void;
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<(value: T) => void>();
  return {
    get: () => value,
    set(next) {
      value = next;
      for (const listener of listeners) listener(value);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}

export interface Session {
  key: string;
  name: string;
  permission: 'full' | 'read' | 'endpoints';
}

const SESSION_KEY = 'gantry.console.session';

function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export const session = createStore<Session | null>(loadSession());
session.subscribe((s) => {
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
});

export const canWrite = (s: Session | null) => s?.permission === 'full';

/** false while calls fail to reach the server; the banner shows then. */
export const online = createStore(true);

type Theme = 'light' | 'dark' | 'system';
export const theme = createStore<Theme>((localStorage.getItem('gantry.console.theme') as Theme | null) ?? 'system');
function applyTheme(t: Theme) {
  if (t === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
  localStorage.setItem('gantry.console.theme', t);
}
applyTheme(theme.get());
theme.subscribe(applyTheme);
