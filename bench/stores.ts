// The queue benchmark on each store: SQLite (one process), PostgreSQL with one replica and with
// two replicas of one deployment (clients and workers spread over both; dispatch and runsync
// cross replicas). CPU per job includes the PostgreSQL server processes; WAL per job is what the
// whole database server wrote meanwhile (run nothing else against it).
// Run: npm run bench:stores -- [--jobs 10000] [--clients 16] [--workers 8] [--samples 500] [--queued 100000]
//   [--rate-limited] (the clients' key counts against rate limits, as users' keys do; exempt by default)
//   [--endpoints 1] (the throughput runs spread their clients and workers over this many endpoints)
//   [--database-rtt-ms 0] (PostgreSQL answers through a relay that holds its answers this long, as a
//   database on another machine; the relay's CPU is not counted)
// PostgreSQL comes from GANTRY_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test);
// each deployment gets a fresh schema, dropped afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { median, percentile } from './lib/measure.js';
import { backendsOf } from './lib/postgres-backends.js';
import { withSchema } from './lib/postgres-schema.js';
import { walBytesDuring } from './lib/postgres-wal.js';
import {
  backlog,
  dispatch,
  queriesOf,
  queryCount,
  runsync,
  startNode,
  stopTarget,
  throughput,
  type Lane,
  type LoadSettings,
  type Target,
  type ThroughputFigures,
} from './lib/queue-load.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '16' },
    workers: { type: 'string', default: '8' },
    batch: { type: 'string', default: '4' },
    samples: { type: 'string', default: '500' },
    queued: { type: 'string', default: '100000' },
    repeat: { type: 'string', default: '3' },
    // Comma-separated subset of sqlite,postgres-1,postgres-2.
    only: { type: 'string', default: 'sqlite,postgres-1,postgres-2' },
    'rate-limited': { type: 'boolean', default: false },
    endpoints: { type: 'string', default: '1' },
    'database-rtt-ms': { type: 'string', default: '0' },
  },
});
const DATABASE_RTT_MS = Number(opts['database-rtt-ms']);
if (!(Number.isInteger(DATABASE_RTT_MS) && DATABASE_RTT_MS >= 0)) throw new Error('--database-rtt-ms: a whole number of milliseconds');
const ENDPOINTS = Number(opts.endpoints);
if (!(ENDPOINTS >= 1 && ENDPOINTS <= Number(opts.workers))) throw new Error('--endpoints: from 1 to --workers, so each has a worker');
const JOBS = Number(opts.jobs);
const QUEUED = Number(opts.queued);
const REPEAT = Number(opts.repeat);
const settings: LoadSettings = {
  clients: Number(opts.clients),
  workers: Number(opts.workers),
  batch: Number(opts.batch),
  samples: Number(opts.samples),
};
const POSTGRES = process.env.GANTRY_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const relays: ChildProcess[] = [];

/** The relay that puts the database `DATABASE_RTT_MS` away (bench/lib/distant-database.ts) and the URL through it. */
async function distantDatabase(url: string): Promise<{ relay: ChildProcess; url: string }> {
  const direct = new URL(url);
  const relay = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/lib/distant-database.ts', direct.hostname, direct.port || '5432', String(DATABASE_RTT_MS)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  relays.push(relay);
  const [line] = (await once(relay.stdout!, 'data')) as [Buffer];
  const through = new URL(url);
  through.port = String((JSON.parse(line.toString()) as { port: number }).port);
  return { relay, url: through.toString() };
}

async function deployment(name: string, replicas: number, directDatabase?: string): Promise<Target> {
  const distant = directDatabase && DATABASE_RTT_MS > 0 ? await distantDatabase(directDatabase) : undefined;
  const database = distant?.url ?? directDatabase;
  const env: Record<string, string> = {
    ...(database ? { BENCH_DATABASE: database } : {}),
    ...(opts['rate-limited'] ? { BENCH_RATE_LIMITED: '1' } : {}),
    BENCH_ENDPOINTS: String(ENDPOINTS),
  };
  const first = await startNode('bench/lib/gantry-server.ts', env);
  const others = await Promise.all(
    Array.from({ length: replicas - 1 }, () => startNode('bench/lib/gantry-server.ts', { ...env, BENCH_JOIN: '1' })),
  );
  return {
    name,
    nodes: [first.node, ...others.map((o) => o.node)],
    endpointId: first.info.endpointId!,
    apiKey: first.info.apiKey!,
    workerKey: first.info.workerKey!,
    lanes: ENDPOINTS > 1 ? (first.info.endpoints as unknown as Lane[]) : undefined,
    // Through the relay, the database's backends serve the relay's connections, and only this deployment's.
    cpuPids: database
      ? () => backendsOf(POSTGRES, distant ? [distant.relay.pid!] : [first.node, ...others.map((o) => o.node)].map((n) => n.child.pid!))
      : () => [],
    batchTakes: true,
    countsQueries: database !== undefined,
  };
}

interface Figures {
  jobsPerSecond: number;
  cpuMsPerJob: number;
  cpuMsPerJobBy: ThroughputFigures['cpuMsPerJobBy'];
  queriesPerJob: number;
  syscallsPerJob: ThroughputFigures['syscallsPerJob'];
  /** PostgreSQL's write-ahead log per job (undefined on SQLite). */
  walBytesPerJob: number | undefined;
  dispatch: number[];
  runsync: number[];
  /** Database round trips per runsync sample (sequential: nothing else runs meanwhile); 0 on SQLite. */
  queriesPerRunsync: number;
  backlog: Awaited<ReturnType<typeof backlog>> | undefined;
}

/** Runsync latencies, and the round trips the servers made for them (PostgreSQL deployments). */
async function runsyncCounted(t: Target, settings: LoadSettings): Promise<{ runsync: number[]; queriesPerRunsync: number }> {
  const before = await queriesOf(t);
  const samples = await runsync(t, settings);
  return { runsync: samples, queriesPerRunsync: ((await queriesOf(t)) - before) / samples.length };
}

async function measure(t: Target, database?: string): Promise<Figures> {
  await throughput(t, Math.min(2000, JOBS), settings);
  const runs: ThroughputFigures[] = [];
  const walPerJob: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    if (!database) runs.push(await throughput(t, JOBS, settings));
    else {
      const { result, walBytes } = await walBytesDuring(database, () => throughput(t, JOBS, settings));
      runs.push(result);
      walPerJob.push(walBytes / JOBS);
    }
  }
  if (process.env.BENCH_QUERY_LOG && t.countsQueries) {
    for (const node of t.nodes) console.log(t.name, (await queryCount(node)).top);
  }
  const figures: Figures = {
    jobsPerSecond: median(runs.map((x) => x.jobsPerSecond)),
    cpuMsPerJob: median(runs.map((x) => x.cpuMsPerJob)),
    cpuMsPerJobBy: {
      servers: median(runs.map((x) => x.cpuMsPerJobBy.servers)),
      database: median(runs.map((x) => x.cpuMsPerJobBy.database)),
      bench: median(runs.map((x) => x.cpuMsPerJobBy.bench)),
    },
    queriesPerJob: median(runs.map((x) => x.queriesPerJob)),
    syscallsPerJob: {
      reads: median(runs.map((x) => x.syscallsPerJob.reads)),
      writes: median(runs.map((x) => x.syscallsPerJob.writes)),
    },
    walBytesPerJob: database ? median(walPerJob) : undefined,
    dispatch: await dispatch(t, settings),
    ...(await runsyncCounted(t, settings)),
    backlog: QUEUED > 0 ? await backlog(t, QUEUED) : undefined,
  };
  await stopTarget(t);
  return figures;
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`);
console.log(
  `jobs ${JOBS}, clients ${settings.clients}, workers ${settings.workers} (batch ${settings.batch}), samples ${settings.samples}, queued ${QUEUED}, repeats ${REPEAT} (medians)${opts['rate-limited'] ? ', rate-limited key' : ''}${ENDPOINTS > 1 ? `, throughput over ${ENDPOINTS} endpoints` : ''}${DATABASE_RTT_MS > 0 ? `, PostgreSQL ${DATABASE_RTT_MS} ms further away` : ''}\n`,
);
const only = new Set(opts.only.split(','));
const results: [string, Figures][] = [];
if (only.has('sqlite')) results.push(['SQLite', await measure(await deployment('sqlite', 1))]);
if (only.has('postgres-1')) {
  results.push(['PostgreSQL x1', await withSchema(POSTGRES, async (url) => measure(await deployment('postgres-1', 1, url), url))]);
}
if (only.has('postgres-2')) {
  results.push(['PostgreSQL x2', await withSchema(POSTGRES, async (url) => measure(await deployment('postgres-2', 2, url), url))]);
}

const f = (n: number, digits = 2) => n.toFixed(digits);
const p = (samples: number[]) => `${f(percentile(samples, 50))} / ${f(percentile(samples, 99))}`;
const line = (label: string, cells: string[]) => console.log(`${label.padEnd(30)}${cells.map((c) => c.padStart(18)).join('')}`);
line(
  '',
  results.map(([name]) => name),
);
line(
  'end to end, jobs/s',
  results.map(([, r]) => f(r.jobsPerSecond, 0)),
);
line(
  'CPU per job (all processes), ms',
  results.map(([, r]) => f(r.cpuMsPerJob, 3)),
);
line(
  '  servers, ms',
  results.map(([, r]) => f(r.cpuMsPerJobBy.servers, 3)),
);
line(
  '  PostgreSQL processes, ms',
  results.map(([, r]) => f(r.cpuMsPerJobBy.database, 3)),
);
line(
  '  (benchmark client), ms',
  results.map(([, r]) => f(r.cpuMsPerJobBy.bench, 3)),
);
line(
  'database round trips per job',
  results.map(([, r]) => (r.queriesPerJob > 0 ? f(r.queriesPerJob, 2) : '-')),
);
line(
  'server reads / writes per job',
  results.map(([, r]) => `${f(r.syscallsPerJob.reads, 1)} / ${f(r.syscallsPerJob.writes, 1)}`),
);
line(
  'WAL written per job, bytes',
  results.map(([, r]) => (r.walBytesPerJob === undefined ? '-' : f(r.walBytesPerJob, 0))),
);
line(
  'dispatch p50 / p99, ms',
  results.map(([, r]) => p(r.dispatch)),
);
line(
  'runsync p50 / p99, ms',
  results.map(([, r]) => p(r.runsync)),
);
line(
  'database round trips per runsync',
  results.map(([, r]) => (r.queriesPerRunsync > 0 ? f(r.queriesPerRunsync, 2) : '-')),
);
if (QUEUED > 0) {
  line(
    `queueing ${QUEUED}, jobs/s`,
    results.map(([, r]) => f(r.backlog!.submitRate, 0)),
  );
  line(
    `purge of ${QUEUED}, ms`,
    results.map(([, r]) => f(r.backlog!.purgeMs, 0)),
  );
}
for (const relay of relays) relay.kill();
process.exit(0);
