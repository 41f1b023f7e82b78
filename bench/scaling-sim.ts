// Scaling simulator: replays a bursty trace through the real scaling policy on a virtual clock and
// compares queue delay (submit -> start) and worker-seconds with two baselines: max workers always
// up, and a Knative-style stable/panic concurrency scaler. Runs in about a second; no real time passes.
// Run: npm run bench:scaling -- [--max 50] [--cold-start 5] [--job 2] [--idle-timeout 10] [--queue-delay 1] [--request-count 1]
import { parseArgs } from 'node:util';
import { DEFAULT_WORKERS } from '../src/domain/endpoint-spec.js';
import { DEFAULT_STABLE_WINDOW_MS } from '../src/domain/scaling-policy.js';
import { simulate, type SimResult, type SimSettings } from './lib/scaling-simulator.js';
import { KNATIVE_DEFAULTS, knativeScaler, policyScaler } from './lib/scaling-strategies.js';
import { buildTrace, describeTrace } from './lib/scaling-trace.js';

const { values: opts } = parseArgs({
  options: {
    max: { type: 'string', default: '50' },
    'cold-start': { type: 'string', default: '5' },
    job: { type: 'string', default: '2' },
    'idle-timeout': { type: 'string', default: String(DEFAULT_WORKERS.idleTimeout) },
    'queue-delay': { type: 'string', default: '1' },
    'request-count': { type: 'string', default: '1' },
  },
});
const settings: SimSettings = {
  max: Number(opts.max),
  coldStartMs: Number(opts['cold-start']) * 1000,
  jobMs: Number(opts.job) * 1000,
  tickMs: 1000,
  stepMs: 100,
};
const idleTimeoutSec = Number(opts['idle-timeout']);
const queueDelay = Number(opts['queue-delay']);
const requestCount = Number(opts['request-count']);
const trace = buildTrace();

const results: [string, SimResult][] = [
  ['always max', simulate(trace, settings, () => ({ start: 0, stop: [] }), settings.max)],
  [
    `QUEUE_DELAY (${queueDelay} s)`,
    simulate(trace, settings, policyScaler({ type: 'QUEUE_DELAY', queueDelay }, { max: settings.max, idleTimeoutSec })),
  ],
  [
    `REQUEST_COUNT (${requestCount})`,
    simulate(trace, settings, policyScaler({ type: 'REQUEST_COUNT', requestCount }, { max: settings.max, idleTimeoutSec })),
  ],
  ['Knative stable/panic', simulate(trace, settings, knativeScaler({ max: settings.max, ...KNATIVE_DEFAULTS }))],
];

console.log(`trace: ${describeTrace()} (${trace.arrivals.length} jobs)`);
console.log(
  `jobs ${settings.jobMs / 1000} s, cold start ${settings.coldStartMs / 1000} s, max ${settings.max}, tick ${settings.tickMs / 1000} s, ` +
    `idleTimeout ${idleTimeoutSec} s (QUEUE_DELAY), stable window ${DEFAULT_STABLE_WINDOW_MS / 1000} s (REQUEST_COUNT)\n`,
);
const columns: [string, number][] = [
  ['strategy', 24],
  ['p50 delay s', 12],
  ['p95 delay s', 12],
  ['worker-s', 10],
  ['starts', 8],
  ['peak', 6],
  ['served', 8],
];
console.log(columns.map(([name, width], i) => (i === 0 ? name.padEnd(width) : name.padStart(width))).join(''));
for (const [name, r] of results) {
  const cells = [
    (r.p50DelayMs / 1000).toFixed(1),
    (r.p95DelayMs / 1000).toFixed(1),
    r.workerSeconds.toFixed(0),
    String(r.starts),
    String(r.peak),
    String(r.served),
  ];
  console.log(name.padEnd(columns[0]![1]) + cells.map((c, i) => c.padStart(columns[i + 1]![1])).join(''));
}

const [, baseline] = results[0]!;
console.log('\ntarget: p95 delay within 1.5x of always-max, at most 40% of its worker-seconds');
for (const [name, r] of results.slice(1)) {
  const delayRatio = r.p95DelayMs / baseline.p95DelayMs;
  const costShare = r.workerSeconds / baseline.workerSeconds;
  const verdict = delayRatio <= 1.5 && costShare <= 0.4 ? 'meets' : 'misses';
  console.log(`${name.padEnd(columns[0]![1])}p95 ${delayRatio.toFixed(2)}x, worker-seconds ${(100 * costShare).toFixed(0)}% -> ${verdict}`);
}
