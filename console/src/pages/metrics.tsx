// Charts of the last hour from the endpoint's jobs: queue depth, delay and execution-time
// percentiles, and jobs by outcome; workers by state from the leader's samples.
import { useMemo, useState } from 'preact/hooks';
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import type { Endpoint, Series, WorkerStates } from '../types';
import { ErrorNote } from '../ui';
import { Chart } from './chart';

const RANGES = [
  { label: 'Last 15 minutes', minutes: 15, step: 15 },
  { label: 'Last hour', minutes: 60, step: 60 },
  { label: 'Last 6 hours', minutes: 360, step: 300 },
];
const C = { a: '#2f6fde', b: '#d9822b', c: '#2e9d5b', d: '#c23b3b', e: '#8a63d2' };

export function Metrics({ endpoint }: { endpoint: Endpoint }) {
  const [range, setRange] = useState(RANGES[1]!);
  const { data, error } = usePoll(
    () => api<Series>('GET', `${apiPath`/v2/serverless/${endpoint.id}/series`}?minutes=${range.minutes}&step=${range.step}`),
    10_000,
    [endpoint.id, range],
  );
  const charts = useMemo(() => {
    if (!data) return null;
    const p = data.points;
    const pick = (k: keyof (typeof p)[number]) => p.map((x) => x[k] as number | null);
    const state = (k: keyof WorkerStates) => p.map((x) => x.workers[k]);
    return {
      times: p.map((x) => x.t),
      workers: [
        { label: 'running', values: state('running'), color: C.c },
        { label: 'idle', values: state('idle'), color: C.a },
        { label: 'initializing', values: state('initializing'), color: C.b },
        { label: 'throttled', values: state('throttled'), color: C.e },
        { label: 'unhealthy', values: state('unhealthy'), color: C.d },
      ],
      depth: [
        { label: 'in queue', values: pick('queued'), color: C.a },
        { label: 'in progress', values: pick('inProgress'), color: C.b },
      ],
      delay: [
        { label: 'p50', values: pick('delayP50'), color: C.c },
        { label: 'p90', values: pick('delayP90'), color: C.b },
        { label: 'p99', values: pick('delayP99'), color: C.d },
      ],
      execution: [
        { label: 'p50', values: pick('executionP50'), color: C.c },
        { label: 'p90', values: pick('executionP90'), color: C.b },
        { label: 'p99', values: pick('executionP99'), color: C.d },
      ],
      outcomes: [
        { label: 'completed', values: pick('completed'), color: C.c },
        { label: 'failed', values: pick('failed'), color: C.d },
        { label: 'timed out', values: pick('timedOut'), color: C.e },
        { label: 'cancelled', values: pick('cancelled'), color: C.b },
      ],
    };
  }, [data]);
  return (
    <div class="stack">
      <div class="toolbar">
        <label for="metrics-range">Range</label>
        <select id="metrics-range" value={range.label} onChange={(e) => setRange(RANGES.find((r) => r.label === e.currentTarget.value)!)}>
          {RANGES.map((r) => (
            <option key={r.label}>{r.label}</option>
          ))}
        </select>
      </div>
      <ErrorNote error={error} />
      {data && (
        <p class="summary" aria-label="Workers now">
          Workers now:{' '}
          {Object.entries(data.workers).map(([k, v]) => (
            <span key={k}>
              {k} <strong>{v}</strong>
            </span>
          ))}
        </p>
      )}
      {charts && (
        <div class="charts">
          <Chart title="Workers by state" times={charts.times} lines={charts.workers} />
          <Chart title="Queue depth" times={charts.times} lines={charts.depth} />
          <Chart title="Queue delay" times={charts.times} lines={charts.delay} unit=" ms" />
          <Chart title="Execution time" times={charts.times} lines={charts.execution} unit=" ms" />
          <Chart
            title={`Jobs finished per ${range.step < 60 ? `${range.step} s` : range.step === 60 ? 'minute' : `${range.step / 60} minutes`}`}
            times={charts.times}
            lines={charts.outcomes}
          />
        </div>
      )}
      <p class="hint">
        Jobs are drawn from the jobs Gantry still keeps; finished jobs leave when their results expire. Workers by state are sampled every
        few seconds and kept 24 hours.
      </p>
    </div>
  );
}
