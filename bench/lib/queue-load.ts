// The queue benchmark's load: servers started as child processes, and the measured phases
// (throughput, dispatch latency, runsync latency, backlog). A target may be several replicas of
// one deployment: clients and workers are spread over them round-robin.
import { spawn, type ChildProcess } from 'node:child_process';
import { Pool } from 'undici';
import { cpuSeconds, ms, profileFlags, rssMiB, syscalls } from './measure.js';

export interface Node {
  child: ChildProcess;
  url: string;
  pool: Pool;
}

export interface Target {
  name: string;
  nodes: Node[];
  endpointId: string;
  apiKey: string;
  workerKey: string;
  /** Further processes whose CPU the deployment costs (the database server). */
  cpuPids: () => number[];
  /** The echo server answers canned bodies and has no batch take. */
  batchTakes: boolean;
  /** The servers count their PostgreSQL statements (bench/lib/query-counter.ts). */
  countsQueries?: boolean;
  /** Endpoints the throughput phase spreads its clients and workers over (round-robin); its own endpoint when absent. */
  lanes?: Lane[];
}

export interface Lane {
  endpointId: string;
  workerKey: string;
}

/** The target as client or worker `i` of the throughput phase sees it: on its lane's endpoint. */
function laneOf(t: Target, i: number): Target {
  return t.lanes ? { ...t, ...t.lanes[i % t.lanes.length]! } : t;
}

export interface LoadSettings {
  clients: number;
  workers: number;
  batch: number;
  samples: number;
}

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/** Starts a server script that prints one JSON line with its url (and, for the first replica, its keys). */
export async function startNode(script: string, env: Record<string, string> = {}): Promise<{ node: Node; info: Record<string, string> }> {
  const child = spawn(process.execPath, [...profileFlags(), '--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      if (buffer.includes('\n')) resolve(buffer.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  const info = JSON.parse(line) as Record<string, string>;
  return { node: { child, url: info.url!, pool: new Pool(info.url!, { connections: 256, pipelining: 1 }) }, info };
}

/** One server process of its own as a target; `cpuPids` names further processes it costs (its database). */
export async function startTarget(
  name: string,
  script: string,
  batchTakes: boolean,
  env: Record<string, string> = {},
  cpuPids: () => number[] = () => [],
): Promise<Target> {
  const { node, info } = await startNode(script, env);
  return {
    name,
    nodes: [node],
    endpointId: info.endpointId!,
    apiKey: info.apiKey!,
    workerKey: info.workerKey!,
    cpuPids,
    batchTakes,
  };
}

export async function stopTarget(t: Target): Promise<void> {
  for (const node of t.nodes) {
    await node.pool.close();
    const exited = new Promise((resolve) => node.child.once('exit', resolve));
    node.child.kill('SIGTERM');
    await exited;
  }
}

// Bodies are whatever the server answered; the benchmark reads a few known fields.
export type Json = { id: string; status: string; removed: number } & Record<string, unknown>;

export async function call(
  t: Target,
  via: number,
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const node = t.nodes[via % t.nodes.length]!;
  const res = await node.pool.request({
    method,
    path: `/v2/${t.endpointId}${path}`,
    headers: body === undefined ? { authorization: key } : { authorization: key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: (text ? JSON.parse(text) : {}) as Json };
}

/** CPU seconds so far of these processes together (one that ended meanwhile counts nothing). */
export function cpuOfPids(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum; // a database backend that ended meanwhile
    }
  }, 0);
}

/** CPU seconds so far of the servers, of the further processes (the database) and of this process. */
function cpuOf(t: Target): { servers: number; database: number; bench: number } {
  const own = process.cpuUsage();
  return {
    servers: cpuOfPids(t.nodes.map((n) => n.child.pid!)),
    database: cpuOfPids(t.cpuPids()),
    bench: (own.user + own.system) / 1e6,
  };
}

/** Read and write system calls of the servers so far. */
function syscallsOf(t: Target): { reads: number; writes: number } {
  return t.nodes
    .map((n) => syscalls(n.child.pid!))
    .reduce((sum, c) => ({ reads: sum.reads + c.reads, writes: sum.writes + c.writes }), { reads: 0, writes: 0 });
}

/** Statements the node has sent to PostgreSQL so far, and the most frequent ones (with BENCH_QUERY_LOG). */
export function queryCount(node: Node): Promise<{ queries: number; top: unknown[] }> {
  return ask(node, 'queries');
}

/** HTTP requests the node has received so far. */
export async function requestCount(node: Node): Promise<number> {
  return (await ask<{ requests: number }>(node, 'requests')).requests;
}

/** Sends `question` over the node's IPC channel and answers the reply that carries a field of that name. */
function ask<T>(node: Node, question: string): Promise<T> {
  return new Promise((resolve) => {
    const answer = (m: unknown) => {
      if (typeof m !== 'object' || m === null || !(question in m)) return;
      node.child.off('message', answer);
      resolve(m as T);
    };
    node.child.on('message', answer);
    node.child.send(question);
  });
}

/** Statements the target's servers have sent to PostgreSQL so far; 0 when it does not count them. */
export async function queriesOf(t: Target): Promise<number> {
  if (!t.countsQueries) return 0;
  const counts = await Promise.all(t.nodes.map(queryCount));
  return counts.reduce((sum, c) => sum + c.queries, 0);
}

export interface ThroughputFigures {
  jobsPerSecond: number;
  /** Servers plus further processes (the database). */
  cpuMsPerJob: number;
  cpuMsPerJobBy: { servers: number; database: number; bench: number };
  /** Statements sent to PostgreSQL per job, all servers together (0 when not counted). */
  queriesPerJob: number;
  /** Read and write system calls per job, all servers together. */
  syscallsPerJob: { reads: number; writes: number };
}

/** run -> take -> done -> status, C clients and W workers at once; answers jobs/s and CPU ms/job. */
export async function throughput(t: Target, jobs: number, s: LoadSettings): Promise<ThroughputFigures> {
  let submitted = 0;
  let completed = 0;
  let stop = false;
  const workers = Array.from({ length: s.workers }, async (_, w) => {
    const lane = laneOf(t, w);
    while (!stop) {
      const path = t.batchTakes ? `/job-take-batch/w${w}?batch_size=${s.batch}` : `/job-take/w${w}`;
      const taken = await call(lane, w, 'GET', path, lane.workerKey);
      if (taken.status !== 200) continue;
      for (const job of (Array.isArray(taken.json) ? taken.json : [taken.json]) as Json[]) {
        await call(lane, w, 'POST', `/job-done/w${w}/${job.id}?isStream=false`, lane.workerKey, { output: { ok: true } });
      }
    }
  });
  const cpuBefore = cpuOf(t);
  const queriesBefore = await queriesOf(t);
  const syscallsBefore = syscallsOf(t);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: s.clients }, async (_, c) => {
      const lane = laneOf(t, c);
      while (submitted < jobs) {
        submitted++;
        const run = await call(lane, c, 'POST', '/run', t.apiKey, { input: { n: submitted } });
        const status = await call(lane, c, 'GET', `/status-sync/${run.json.id}?wait=60000`, t.apiKey);
        if (status.json.status === 'COMPLETED') completed++;
      }
    }),
  );
  const seconds = ms(started) / 1000;
  const cpuAfter = cpuOf(t);
  const syscallsAfter = syscallsOf(t);
  const queries = (await queriesOf(t)) - queriesBefore;
  stop = true;
  // Wake the workers' long-polls so they see the stop (worker w is on lane w, as wake-up i).
  for (let i = 0; i < s.workers * s.batch; i++) void call(laneOf(t, i), i, 'POST', '/run', t.apiKey, { input: { drain: true } });
  await Promise.all(workers);
  // The wake-up jobs no worker took stay queued: the dispatch and runsync samples that follow would
  // take them instead of their own jobs and time a queued job, not a hand-off to a waiting worker.
  for (const lane of t.lanes ?? [t]) {
    const purged = await call({ ...t, ...lane }, 0, 'POST', '/purge-queue', t.apiKey, {});
    if (purged.status !== 200) throw new Error(`${t.name}: purge-queue answered ${purged.status}`);
  }
  if (completed !== jobs) throw new Error(`${t.name}: ${completed} of ${jobs} jobs completed`);
  const perJob = (key: 'servers' | 'database' | 'bench') => ((cpuAfter[key] - cpuBefore[key]) * 1000) / jobs;
  const by = { servers: perJob('servers'), database: perJob('database'), bench: perJob('bench') };
  const syscallsPerJob = {
    reads: (syscallsAfter.reads - syscallsBefore.reads) / jobs,
    writes: (syscallsAfter.writes - syscallsBefore.writes) / jobs,
  };
  return {
    jobsPerSecond: jobs / seconds,
    cpuMsPerJob: by.servers + by.database,
    cpuMsPerJobBy: by,
    queriesPerJob: queries / jobs,
    syscallsPerJob,
  };
}

/** run accepted -> the idle long-polling worker receives it (on another replica when there are several). */
export async function dispatch(t: Target, s: LoadSettings): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < s.samples; i++) {
    const take = call(t, 1, 'GET', '/job-take/lat', t.workerKey);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const started = process.hrtime.bigint();
    await call(t, 0, 'POST', '/run', t.apiKey, { input: { i } });
    const taken = await take;
    samples.push(ms(started));
    await call(t, 1, 'POST', `/job-done/lat/${taken.json.id}?isStream=false`, t.workerKey, { output: null });
  }
  return samples;
}

/**
 * runsync round trip with a worker that answers at once (on another replica when there are
 * several): `s.samples` of them, or as many as fit in `forMs` when it is given.
 */
export async function runsync(t: Target, s: LoadSettings, forMs?: number): Promise<number[]> {
  const until = Date.now() + (forMs ?? 0);
  let stop = false;
  const worker = (async () => {
    while (!stop) {
      const taken = await call(t, 1, 'GET', '/job-take/sync', t.workerKey);
      if (taken.status === 200) await call(t, 1, 'POST', `/job-done/sync/${taken.json.id}?isStream=false`, t.workerKey, { output: 'ok' });
    }
  })();
  const samples: number[] = [];
  for (let i = 0; forMs === undefined ? i < s.samples : Date.now() < until; i++) {
    const started = process.hrtime.bigint();
    const res = await call(t, 0, 'POST', '/runsync?wait=10000', t.apiKey, { input: { i } });
    if (res.json.status !== 'COMPLETED') throw new Error(`runsync answered ${res.json.status}`);
    samples.push(ms(started));
  }
  stop = true;
  await call(t, 0, 'POST', '/run', t.apiKey, { input: { drain: true } });
  await worker;
  return samples;
}

export async function backlog(
  t: Target,
  queued: number,
): Promise<{ rssBefore: number; rssAfter: number; submitRate: number; purgeMs: number; removed: number }> {
  const pid = t.nodes[0]!.child.pid!;
  const rssBefore = rssMiB(pid);
  let sent = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 64 }, async (_, c) => {
      while (sent < queued) {
        sent++;
        await call(t, c, 'POST', '/run', t.apiKey, { input: { n: sent, text: 'queued job' } });
      }
    }),
  );
  const submitRate = queued / (ms(started) / 1000);
  const rssAfter = rssMiB(pid);
  const purgeStart = process.hrtime.bigint();
  const purge = await call(t, 0, 'POST', '/purge-queue', t.apiKey, {});
  return { rssBefore, rssAfter, submitRate, purgeMs: ms(purgeStart), removed: purge.json.removed };
}
