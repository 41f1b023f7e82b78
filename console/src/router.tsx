// Path routing under /console with the History API; the server answers index.html for every page.
import type { ComponentChildren } from 'preact';
import { createStore } from './state';

export const BASE = '/console';
export const route = createStore(location.pathname);
addEventListener('popstate', () => route.set(location.pathname));

export function navigate(path: string) {
  const full = path.startsWith(BASE) ? path : `${BASE}${path}`;
  if (full === location.pathname) return;
  history.pushState(null, '', full);
  route.set(full);
  window.scrollTo(0, 0);
}

/** The page path without the base: "/endpoints/abc/workers" → ["endpoints", "abc", "workers"]. */
export function segments(path: string): string[] {
  return path
    .slice(BASE.length)
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
}

export function Link({
  to,
  children,
  class: className,
  ...rest
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  return (
    <a
      href={`${BASE}${to}`}
      class={className}
      {...rest}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
