// Server configuration: flags win over environment variables, which win over defaults.
// Every value is checked up front so a bad setting fails at start with a clear message.
import { resolve } from 'node:path';

export interface RateLimitQuotas {
  minute: number;
  hour: number;
  day: number;
}

export interface GantryConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Base of the management API, as clients reach it. */
  publicUrl: string;
  /** Base of the queue and worker APIs, used in requestUrls and handed to workers. */
  workerApiUrl: string;
  /** This process's own address: the workers it starts call it, and other replicas fetch their logs from it. */
  replicaUrl: string;
  /** Pattern of a load-balancing endpoint's base URL; `{id}` is replaced by the endpoint id. */
  lbUrlPattern: string;
  rateLimits: RateLimitQuotas;
  /** Failed authentications one client address may make per minute before it gets 429s. */
  authFailureLimit: number;
  /** Replacement catalog file (GPU types, CPU flavors, data centers, public templates). */
  catalogFile: string | undefined;
  /** Capacity this deployment offers, as declared by the operator. */
  capacityFile: string | undefined;
  /** Upper bound for an endpoint's workers.max. */
  maxWorkersPerEndpoint: number;
  logLevel: string;
  /** How long a taken job stays leased to its worker without a ping or result. */
  jobLeaseMs: number;
  /** How long job-take and job-stop long-polls are held before answering 204. */
  takeWaitMs: number;
  /** How long a stream read waits for a chunk before answering with none. */
  streamWaitMs: number;
  /** After this many lapsed leases a job fails instead of going back to the queue. */
  maxLeaseLosses: number;
  /** Period of the sweeper that enforces timeouts, expiries and leases. */
  sweepIntervalMs: number;
  /** Largest job output stored; a larger one fails the job with a clear error. */
  maxOutputBytes: number;
  /** Address ranges webhooks may reach although they are private, loopback or link-local. */
  webhookAllowCidrs: string[];
  /** Ping period handed to workers (RUNPOD_PING_INTERVAL). */
  workerPingIntervalMs: number;
  /** Period of the autoscaler's control loop. */
  scaleIntervalMs: number;
  /** A started worker that has not taken a job by then is UNHEALTHY and replaced. */
  workerInitTimeoutMs: number;
  /** SIGTERM to SIGKILL when a worker is stopped. */
  workerStopGraceMs: number;
  /** First delay before replacing a crashed worker; it doubles per crash in a row, up to a minute. */
  crashBackoffMs: number;
  /** Working directory of local worker processes. */
  workerWorkDir: string;
  /** Which worker provider runs workers: local processes, or none (workers are started by hand). */
  workerProvider: 'process' | 'none';
  /** PostgreSQL URL of a shared store for several replicas; undefined keeps the embedded SQLite file. */
  databaseUrl: string | undefined;
  /** Connections each replica keeps to PostgreSQL. */
  databasePoolSize: number;
  /** How long a replica's leadership (sweepers, autoscaler) lasts without renewal. */
  leaderLeaseMs: number;
  /** Waiters re-check the store this often in case a cross-replica notification was missed. */
  eventFallbackMs: number;
  /** How long a load-balanced request waits for a ready worker with room before 503. */
  lbHoldMs: number;
  /** Period of health checks of ready load-balancing workers (starting ones are checked more often). */
  lbHealthIntervalMs: number;
  /** A load-balancing worker unhealthy this long after it was ready is replaced. */
  lbUnhealthyMs: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Options as given on the command line; undefined means "not given". */
export interface ConfigFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  publicUrl?: string;
  workerApiUrl?: string;
  replicaUrl?: string;
  lbUrlPattern?: string;
  rateLimitMinute?: string;
  rateLimitHour?: string;
  rateLimitDay?: string;
  authFailureLimit?: string;
  catalogFile?: string;
  capacityFile?: string;
  maxWorkersPerEndpoint?: string;
  logLevel?: string;
  jobLeaseMs?: string;
  takeWaitMs?: string;
  streamWaitMs?: string;
  maxLeaseLosses?: string;
  sweepIntervalMs?: string;
  maxOutputBytes?: string;
  webhookAllowCidrs?: string;
  workerPingIntervalMs?: string;
  scaleIntervalMs?: string;
  workerInitTimeoutMs?: string;
  workerStopGraceMs?: string;
  crashBackoffMs?: string;
  workerWorkDir?: string;
  workerProvider?: string;
  database?: string;
  databasePoolSize?: string;
  leaderLeaseMs?: string;
  eventFallbackMs?: string;
  lbHoldMs?: string;
  lbHealthIntervalMs?: string;
  lbUnhealthyMs?: string;
}

type Env = Record<string, string | undefined>;

const ENV_NAMES: Record<keyof ConfigFlags, string> = {
  host: 'GANTRY_HOST',
  port: 'GANTRY_PORT',
  dataDir: 'GANTRY_DATA_DIR',
  publicUrl: 'GANTRY_PUBLIC_URL',
  workerApiUrl: 'GANTRY_WORKER_API_URL',
  replicaUrl: 'GANTRY_REPLICA_URL',
  lbUrlPattern: 'GANTRY_LB_URL_PATTERN',
  rateLimitMinute: 'GANTRY_RATE_LIMIT_MINUTE',
  rateLimitHour: 'GANTRY_RATE_LIMIT_HOUR',
  rateLimitDay: 'GANTRY_RATE_LIMIT_DAY',
  authFailureLimit: 'GANTRY_AUTH_FAILURE_LIMIT',
  catalogFile: 'GANTRY_CATALOG_FILE',
  capacityFile: 'GANTRY_CAPACITY_FILE',
  maxWorkersPerEndpoint: 'GANTRY_MAX_WORKERS_PER_ENDPOINT',
  logLevel: 'GANTRY_LOG_LEVEL',
  jobLeaseMs: 'GANTRY_JOB_LEASE_MS',
  takeWaitMs: 'GANTRY_TAKE_WAIT_MS',
  streamWaitMs: 'GANTRY_STREAM_WAIT_MS',
  maxLeaseLosses: 'GANTRY_MAX_LEASE_LOSSES',
  sweepIntervalMs: 'GANTRY_SWEEP_INTERVAL_MS',
  maxOutputBytes: 'GANTRY_MAX_OUTPUT_BYTES',
  webhookAllowCidrs: 'GANTRY_WEBHOOK_ALLOW_CIDRS',
  workerPingIntervalMs: 'GANTRY_WORKER_PING_INTERVAL_MS',
  scaleIntervalMs: 'GANTRY_SCALE_INTERVAL_MS',
  workerInitTimeoutMs: 'GANTRY_WORKER_INIT_TIMEOUT_MS',
  workerStopGraceMs: 'GANTRY_WORKER_STOP_GRACE_MS',
  crashBackoffMs: 'GANTRY_CRASH_BACKOFF_MS',
  workerWorkDir: 'GANTRY_WORKER_WORK_DIR',
  workerProvider: 'GANTRY_WORKER_PROVIDER',
  database: 'GANTRY_DATABASE_URL',
  databasePoolSize: 'GANTRY_DATABASE_POOL_SIZE',
  leaderLeaseMs: 'GANTRY_LEADER_LEASE_MS',
  eventFallbackMs: 'GANTRY_EVENT_FALLBACK_MS',
  lbHoldMs: 'GANTRY_LB_HOLD_MS',
  lbHealthIntervalMs: 'GANTRY_LB_HEALTH_INTERVAL_MS',
  lbUnhealthyMs: 'GANTRY_LB_UNHEALTHY_MS',
};

export const DEFAULT_DATA_DIR = '.gantry';
export const DEFAULT_RATE_LIMITS: RateLimitQuotas = { minute: 6000, hour: 200_000, day: 2_000_000 };
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function envNameOf(flag: keyof ConfigFlags): string {
  return ENV_NAMES[flag];
}

export function loadConfig(flags: ConfigFlags, env: Env = process.env): GantryConfig {
  const problems: string[] = [];
  const pick = (key: keyof ConfigFlags): string | undefined => {
    const value = flags[key] ?? env[ENV_NAMES[key]];
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (key: keyof ConfigFlags, fallback: number, min: number, max: number): number => {
    const raw = pick(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${describe(key)} must be an integer from ${min} to ${max}, got '${raw}'`);
      return fallback;
    }
    return value;
  };
  const choice = <T extends string>(key: keyof ConfigFlags, allowed: T[], fallback: T): T => {
    const raw = pick(key) ?? fallback;
    if (!allowed.includes(raw as T)) problems.push(`${describe(key)} must be one of ${allowed.join(', ')}, got '${raw}'`);
    return raw as T;
  };
  const url = (key: keyof ConfigFlags, fallback: string): string => {
    const raw = pick(key) ?? fallback;
    if (!isHttpUrl(raw)) problems.push(`${describe(key)} must be an absolute http(s) URL, got '${raw}'`);
    return raw.replace(/\/+$/, '');
  };

  const host = pick('host') ?? '127.0.0.1';
  const port = integer('port', 8080, 0, 65535);
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const localUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const publicUrl = url('publicUrl', localUrl);
  const workerApiUrl = url('workerApiUrl', publicUrl);
  const replicaUrl = url('replicaUrl', localUrl);

  const lbUrlPattern = (pick('lbUrlPattern') ?? `http://{id}.localhost:${port}`).replace(/\/+$/, '');
  if (!lbUrlPattern.includes('{id}') || !isHttpUrl(lbUrlPattern.replace('{id}', 'x'))) {
    problems.push(`${describe('lbUrlPattern')} must be an http(s) URL containing {id}, got '${lbUrlPattern}'`);
  }

  const rateLimits: RateLimitQuotas = {
    minute: integer('rateLimitMinute', DEFAULT_RATE_LIMITS.minute, 1, 1e9),
    hour: integer('rateLimitHour', DEFAULT_RATE_LIMITS.hour, 1, 1e9),
    day: integer('rateLimitDay', DEFAULT_RATE_LIMITS.day, 1, 1e9),
  };
  const logLevel = pick('logLevel') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`${describe('logLevel')} must be one of ${LOG_LEVELS.join(', ')}`);

  const config: GantryConfig = {
    host,
    port,
    dataDir: resolve(pick('dataDir') ?? DEFAULT_DATA_DIR),
    publicUrl,
    workerApiUrl,
    replicaUrl,
    lbUrlPattern,
    rateLimits,
    authFailureLimit: integer('authFailureLimit', 30, 1, 1e9),
    catalogFile: optionalPath(pick('catalogFile')),
    capacityFile: optionalPath(pick('capacityFile')),
    maxWorkersPerEndpoint: integer('maxWorkersPerEndpoint', 100, 1, 100_000),
    logLevel,
    jobLeaseMs: integer('jobLeaseMs', 30_000, 200, 3_600_000),
    takeWaitMs: integer('takeWaitMs', 20_000, 0, 80_000),
    streamWaitMs: integer('streamWaitMs', 5_000, 0, 60_000),
    maxLeaseLosses: integer('maxLeaseLosses', 3, 1, 100),
    sweepIntervalMs: integer('sweepIntervalMs', 500, 10, 60_000),
    maxOutputBytes: integer('maxOutputBytes', 20 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    webhookAllowCidrs: cidrList(pick('webhookAllowCidrs'), problems),
    workerPingIntervalMs: integer('workerPingIntervalMs', 10_000, 100, 600_000),
    scaleIntervalMs: integer('scaleIntervalMs', 1000, 20, 60_000),
    workerInitTimeoutMs: integer('workerInitTimeoutMs', 300_000, 500, 3_600_000),
    workerStopGraceMs: integer('workerStopGraceMs', 10_000, 0, 600_000),
    crashBackoffMs: integer('crashBackoffMs', 1000, 10, 600_000),
    workerWorkDir: resolve(pick('workerWorkDir') ?? '.'),
    workerProvider: choice('workerProvider', ['process', 'none'], 'process'),
    databaseUrl: databaseUrl(pick('database'), problems),
    databasePoolSize: integer('databasePoolSize', 10, 1, 1000),
    leaderLeaseMs: integer('leaderLeaseMs', 10_000, 200, 600_000),
    eventFallbackMs: integer('eventFallbackMs', 2_000, 50, 60_000),
    lbHoldMs: integer('lbHoldMs', 30_000, 0, 600_000),
    lbHealthIntervalMs: integer('lbHealthIntervalMs', 1000, 20, 60_000),
    lbUnhealthyMs: integer('lbUnhealthyMs', 10_000, 0, 3_600_000),
  };
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}

function cidrList(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return [];
  const list = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  for (const cidr of list) {
    const [address = '', bits = ''] = cidr.split('/');
    const maxBits = address.includes(':') ? 128 : 32;
    const validAddress = address.includes(':') ? /^[0-9a-fA-F:.]+$/.test(address) : /^(\d{1,3}\.){3}\d{1,3}$/.test(address);
    if (!validAddress || !/^\d+$/.test(bits) || Number(bits) > maxBits) {
      problems.push(`${describe('webhookAllowCidrs')} must be a comma-separated list of CIDR ranges, got '${cidr}'`);
    }
  }
  return list;
}

function databaseUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\/./.test(raw)) {
    problems.push(`${describe('database')} must be a postgres:// URL (leave it unset for the embedded SQLite store), got '${redact(raw)}'`);
  }
  return raw;
}

/** Hides a password in a connection URL before it is shown. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

function describe(key: keyof ConfigFlags): string {
  const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return `--${flag} (${ENV_NAMES[key]})`;
}

function optionalPath(value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolve(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
