// Small shared pieces: page headings, errors, status badges, copy buttons, field wrappers.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { errorText, Problem } from './api';

export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{title}</h1>
        {actions && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const problem = error instanceof Problem ? error : undefined;
  return (
    <div class="error-note" role="alert">
      <strong>{problem ? `${problem.status} ${problem.title}` : 'Error'}</strong>: {errorText(error)}
      {problem && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const TONES: Record<string, string> = {
  COMPLETED: 'ok',
  RUNNING: 'ok',
  IDLE: 'info',
  IN_PROGRESS: 'info',
  IN_QUEUE: 'wait',
  INITIALIZING: 'wait',
  THROTTLED: 'warn',
  CANCELLED: 'muted',
  FAILED: 'bad',
  TIMED_OUT: 'bad',
  UNHEALTHY: 'bad',
};

export function Badge({ status }: { status: string }) {
  return <span class={`badge tone-${TONES[status] ?? 'muted'}`}>{status}</span>;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="small"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function Code({ children, label }: { children: string; label: string }) {
  return (
    <div class="code">
      <div class="code-head">
        <span>{label}</span>
        <CopyButton text={children} label={`Copy ${label}`} />
      </div>
      <pre tabIndex={0}>
        <code>{children}</code>
      </pre>
    </div>
  );
}

export const ms = (value: number | null | undefined) =>
  value === null || value === undefined
    ? '—'
    : value < 1000
      ? `${Math.round(value)} ms`
      : `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '—');

export const json = (value: unknown) => JSON.stringify(value, null, 2);
