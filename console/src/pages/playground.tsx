// Send a request with run or runsync and watch its status and stream live.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiPath } from '../api';
import { canWrite, session, useStore } from '../state';
import type { Endpoint } from '../types';
import { Badge, ErrorNote, json, ms } from '../ui';

interface Status {
  id: string;
  status: string;
  delayTime?: number;
  executionTime?: number;
  output?: unknown;
  error?: string;
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
const sleep = (msecs: number) => new Promise((r) => setTimeout(r, msecs));

function validate(text: string): string | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The request must be a JSON object.';
    if (!('input' in value)) return 'The request needs an "input" field.';
    return null;
  } catch (e) {
    return `Not valid JSON: ${(e as Error).message}`;
  }
}

export function Playground({ endpoint }: { endpoint: Endpoint }) {
  const writer = canWrite(useStore(session));
  const [text, setText] = useState('{\n  "input": {\n    "prompt": "Hello"\n  }\n}');
  const [mode, setMode] = useState<'run' | 'runsync'>('run');
  const [status, setStatus] = useState<Status | null>(null);
  const [chunks, setChunks] = useState<unknown[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const watching = useRef(0);
  useEffect(() => () => void (watching.current += 1), []);
  const invalid = validate(text);

  const watch = async (id: string, run: number) => {
    while (watching.current === run) {
      const [s, stream] = await Promise.all([
        api<Status>('GET', apiPath`/v2/${endpoint.id}/status/${id}`),
        api<{ stream?: { output: unknown }[] }>('GET', apiPath`/v2/${endpoint.id}/stream/${id}`).catch(() => ({ stream: [] })),
      ]);
      if (watching.current !== run) return;
      if (stream.stream?.length) setChunks((c) => [...c, ...stream.stream!.map((x) => x.output)]);
      setStatus(s);
      if (TERMINAL.has(s.status)) return;
      await sleep(500);
    }
  };

  const send = async (e: Event) => {
    e.preventDefault();
    if (invalid) return;
    const run = (watching.current += 1);
    setBusy(true);
    setError(undefined);
    setChunks([]);
    setStatus(null);
    try {
      const body = JSON.parse(text) as unknown;
      const first = await api<Status>('POST', `${apiPath`/v2/${endpoint.id}/${mode}`}${mode === 'runsync' ? '?wait=30000' : ''}`, body);
      setStatus(first);
      // Once even when runsync answered it finished: what the job streamed is read from /stream.
      await watch(first.id, run);
    } catch (err) {
      setError(err);
    } finally {
      if (watching.current === run) setBusy(false);
    }
  };

  const cancel = async () => {
    if (!status) return;
    try {
      setStatus(await api<Status>('POST', apiPath`/v2/${endpoint.id}/cancel/${status.id}`));
    } catch (err) {
      // It may have ended meanwhile: say why, and show where it is now.
      setError(err);
      setStatus(await api<Status>('GET', apiPath`/v2/${endpoint.id}/status/${status.id}`).catch(() => status));
    }
  };

  return (
    <div class="playground">
      <form class="stack" onSubmit={(e) => void send(e)} noValidate>
        <label for="request-body">Request body</label>
        <textarea
          id="request-body"
          class="editor"
          rows={12}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby="request-body-check"
        />
        <p id="request-body-check" class={invalid ? 'field-error' : 'hint'}>
          {invalid ?? 'Valid JSON.'}
        </p>
        <div class="toolbar">
          <label for="send-mode">Send with</label>
          <select id="send-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as 'run' | 'runsync')}>
            <option value="run">run (asynchronous)</option>
            <option value="runsync">runsync (waits for the result)</option>
          </select>
          <button type="submit" class="primary" disabled={!writer || busy || invalid !== null}>
            {busy ? 'Running…' : 'Send'}
          </button>
          {writer && busy && status && !TERMINAL.has(status.status) && (
            <button type="button" onClick={() => void cancel()}>
              Cancel job
            </button>
          )}
        </div>
        {!writer && <p class="hint">A read-only key cannot send requests.</p>}
      </form>
      <section class="stack" aria-live="polite" aria-label="Result">
        <ErrorNote error={error} />
        {status && (
          <>
            <p class="result-line">
              Job <code>{status.id}</code> <Badge status={status.status} />{' '}
              <span class="sub">
                delay {ms(status.delayTime)} · execution {ms(status.executionTime)}
              </span>
            </p>
            {status.output !== undefined && (
              <>
                <h3>Output</h3>
                <pre tabIndex={0} class="result-output">
                  {json(status.output)}
                </pre>
              </>
            )}
            {status.error && <pre class="bad-text">{status.error}</pre>}
          </>
        )}
        {chunks.length > 0 && (
          <>
            <h3>Stream</h3>
            <pre tabIndex={0}>{chunks.map((c) => JSON.stringify(c)).join('\n')}</pre>
          </>
        )}
      </section>
    </div>
  );
}
