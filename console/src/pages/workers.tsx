// The endpoint's workers, live, with crash-loop reasons and each worker's log followed as it grows.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import { followSse, type SseState } from '../sse';
import type { Endpoint, WorkersAnswer } from '../types';
import { Table } from '../table';
import { Badge, ErrorNote, when } from '../ui';

const MAX_LINES = 2000;

export function Workers({ endpoint }: { endpoint: Endpoint }) {
  const { data, error } = usePoll(() => api<WorkersAnswer>('GET', apiPath`/v2/serverless/${endpoint.id}/workers`), 2000, [endpoint.id]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div class="stack">
      <ErrorNote error={error} />
      {data?.crashLoop && (
        <div class="error-note" role="alert">
          <strong>Crash loop</strong>: {data.crashLoop.consecutive} exits in a row; last: {data.crashLoop.lastReason} (next start at{' '}
          {when(data.crashLoop.nextStartAt)}){data.crashLoop.lastLogLines.length > 0 && <pre>{data.crashLoop.lastLogLines.join('\n')}</pre>}
        </div>
      )}
      {data && (
        <p class="summary">
          {(['running', 'idle', 'initializing', 'throttled', 'unhealthy'] as const).map((k) => (
            <span key={k}>
              {k} <strong>{data.summary[k]}</strong>
            </span>
          ))}
        </p>
      )}
      {data && (
        <Table
          caption="Workers"
          rows={data.workers}
          rowKey={(w) => w.id}
          rowData={(w) => ({ 'data-worker': w.id })}
          empty="No workers right now. Workers start when jobs arrive, or to keep the minimum."
          columns={[
            {
              label: 'Worker',
              rowHeader: true,
              class: 'mono',
              cell: (w) => (
                <>
                  {w.id}
                  {!w.managed && <div class="sub">started by hand</div>}
                </>
              ),
            },
            {
              label: 'State',
              cell: (w) => (
                <>
                  <Badge status={w.status} />
                  {w.isStale && <span class="sub"> · older version</span>}
                  {w.statusMessage && <div class="sub">{w.statusMessage}</div>}
                </>
              ),
            },
            { label: 'GPU', cell: (w) => (w.gpuTypeId ? `${w.gpuTypeId} × ${w.gpuCount}` : 'CPU') },
            { label: 'Version', cell: (w) => w.version ?? '—' },
            { label: 'Started', cell: (w) => when(w.startedAt) },
            {
              label: 'Log',
              labelHidden: true,
              cell: (w) =>
                w.managed && (
                  <button type="button" class="small" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                    {open === w.id ? 'Hide log' : 'Log'}
                  </button>
                ),
            },
          ]}
        />
      )}
      {open && <WorkerLog endpointId={endpoint.id} workerId={open} />}
    </div>
  );
}

interface LogLine {
  source: string;
  line: string;
  ts: string;
}

function WorkerLog({ endpointId, workerId }: { endpointId: string; workerId: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<SseState>('reconnecting');
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setLines([]);
    return followSse(
      `${apiPath`/v2/serverless/${endpointId}/workers/${workerId}/logs`}?tail=200`,
      (e) => setLines((old) => [...old, JSON.parse(e.data) as LogLine].slice(-MAX_LINES)),
      setState,
    );
  }, [endpointId, workerId]);
  useEffect(() => {
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <section class="stack" aria-label={`Log of worker ${workerId}`}>
      <h2>
        Log of {workerId}{' '}
        <span class="sub">
          {state === 'following' ? '· following' : state === 'reconnecting' ? '· reconnecting…' : `· ended: ${state.ended}`}
        </span>
      </h2>
      <pre class="log" ref={box} tabIndex={0} aria-live="off">
        {lines.map((l, i) => (
          <div key={i} class={`log-${l.source}`}>
            <span class="log-ts">{new Date(l.ts).toLocaleTimeString()}</span> {l.line}
          </div>
        ))}
      </pre>
    </section>
  );
}
