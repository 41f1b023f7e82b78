// Every server setting, once: its flag, environment variable, kind of value, default and meaning.
// The configuration type and parser (src/config.ts), `gantry serve --help` and the README's
// settings section are all made from this table. Order matters: it is the order of `--help` and
// the docs, and a derived default may only read settings listed before it.
import { join } from 'node:path';
import type { DerivationSources, Setting } from './setting.js';
import { base64Key, choice, cidrList, httpUrl, integer, path, postgresUrl, secretToken, text, urlPattern } from './value-types.js';

/** The address of this process as it sees itself: a wildcard host is reached on loopback. */
function localUrl({ host, port }: DerivationSources): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

export const SETTINGS = {
  port: {
    flag: '--port <n>',
    env: 'GANTRY_PORT',
    type: integer(0, 65535),
    default: '8080',
    description: 'port to listen on; 0 picks a free one',
  },
  host: {
    flag: '--host <address>',
    env: 'GANTRY_HOST',
    type: text,
    default: '127.0.0.1',
    description: 'address to listen on',
  },
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'GANTRY_DATA_DIR',
    type: path,
    default: '.gantry',
    description: 'where the embedded SQLite database lives',
  },
  volumeRoot: {
    flag: '--volume-root <dir>',
    env: 'GANTRY_VOLUME_ROOT',
    type: path,
    default: { from: ({ dataDir }) => join(dataDir, 'volumes'), says: '<data-dir>/volumes' },
    description: 'where network volumes live, one directory each; replicas must share it (an NFS or other shared mount)',
  },
  databaseUrl: {
    flag: '--database <url>',
    env: 'GANTRY_DATABASE_URL',
    type: postgresUrl,
    defaultMeans: 'the embedded SQLite store',
    description: 'PostgreSQL store shared by several replicas',
  },
  secretKey: {
    flag: '--secret-key <base64>',
    env: 'GANTRY_SECRET_KEY',
    type: base64Key,
    defaultMeans: 'SQLite: a key file made in the data directory on first use; PostgreSQL: none, and stored secrets are refused',
    description: 'key that encrypts stored secrets (registry credentials, /v2/secrets values); every PostgreSQL replica needs the same one',
  },
  databasePoolSize: {
    flag: '--database-pool-size <n>',
    env: 'GANTRY_DATABASE_POOL_SIZE',
    type: integer(1, 1000),
    default: '10',
    description:
      'PostgreSQL connections per replica, half of them for the batched statements of jobs and rate limits (at least one each, plus one that listens for notifications)',
  },
  leaderLeaseMs: {
    flag: '--leader-lease-ms <ms>',
    env: 'GANTRY_LEADER_LEASE_MS',
    type: integer(200, 600_000),
    default: '10000',
    description: 'how long leadership (sweepers, autoscaler) lasts without renewal: a dead leader is replaced within this (PostgreSQL)',
  },
  eventFallbackMs: {
    flag: '--event-fallback-ms <ms>',
    env: 'GANTRY_EVENT_FALLBACK_MS',
    type: integer(50, 60_000),
    default: '2000',
    description: 'waiters re-check the store this often in case a notification was missed (PostgreSQL)',
  },
  publicUrl: {
    flag: '--public-url <url>',
    env: 'GANTRY_PUBLIC_URL',
    type: httpUrl,
    default: { from: localUrl, says: 'http://<host>:<port>' },
    description: 'base URL of the management API, as clients reach it',
  },
  workerApiUrl: {
    flag: '--worker-api-url <url>',
    env: 'GANTRY_WORKER_API_URL',
    type: httpUrl,
    default: { from: ({ publicUrl }) => publicUrl, says: 'the public URL' },
    description: 'base URL of the queue and worker APIs: requestUrls and the URL handed to workers',
  },
  replicaUrl: {
    flag: '--replica-url <url>',
    env: 'GANTRY_REPLICA_URL',
    type: httpUrl,
    default: { from: localUrl, says: 'http://<host>:<port>' },
    description: "this process's own address, called by the workers it starts and by other replicas",
  },
  lbUrlPattern: {
    flag: '--lb-url-pattern <url>',
    env: 'GANTRY_LB_URL_PATTERN',
    type: urlPattern,
    // The path form resolves from any client; a host form needs wildcard DNS the operator sets up.
    default: { from: ({ publicUrl }) => `${publicUrl}/v2/lb/{id}`, says: '<public URL>/v2/lb/{id}' },
    description:
      'base URL of a load-balancing endpoint, {id} standing for its id: a path on the public URL, or its own host (e.g. http://{id}.lb.example.com) with wildcard DNS',
  },
  rateLimitMinute: {
    flag: '--rate-limit-minute <n>',
    env: 'GANTRY_RATE_LIMIT_MINUTE',
    type: integer(1, 1e9),
    default: '6000',
    description: 'API requests per account per minute; a run-batch job or a GraphQL root field counts as one',
  },
  rateLimitHour: {
    flag: '--rate-limit-hour <n>',
    env: 'GANTRY_RATE_LIMIT_HOUR',
    type: integer(1, 1e9),
    default: '200000',
    description: 'API requests per account per hour; a run-batch job or a GraphQL root field counts as one',
  },
  rateLimitDay: {
    flag: '--rate-limit-day <n>',
    env: 'GANTRY_RATE_LIMIT_DAY',
    type: integer(1, 1e9),
    default: '2000000',
    description: 'API requests per account per day; a run-batch job or a GraphQL root field counts as one',
  },
  authFailureLimit: {
    flag: '--auth-failure-limit <n>',
    env: 'GANTRY_AUTH_FAILURE_LIMIT',
    type: integer(1, 1_000_000),
    default: '30',
    description: 'failed authentications per client address per minute before it is answered 429',
  },
  trustProxy: {
    flag: '--trust-proxy <list>',
    env: 'GANTRY_TRUST_PROXY',
    type: cidrList,
    default: '',
    defaultMeans: "none: a client's address is its connection's",
    description:
      "address ranges of reverse proxies in front (a load balancer): their X-Forwarded-For gives the client's address, which failed authentications are counted by",
  },
  catalogFile: {
    flag: '--catalog-file <file>',
    env: 'GANTRY_CATALOG_FILE',
    type: path,
    defaultMeans: 'the built-in catalog',
    description: 'replacement catalog JSON: GPU types, CPU flavors, data centers, public templates (docs/catalog.md)',
  },
  capacityFile: {
    flag: '--capacity-file <file>',
    env: 'GANTRY_CAPACITY_FILE',
    type: path,
    defaultMeans: 'GPUs reported by nvidia-smi (none without it) and 64 vCPUs, in data center LOCAL',
    description: 'capacity this deployment offers (JSON)',
  },
  maxWorkersPerEndpoint: {
    flag: '--max-workers-per-endpoint <n>',
    env: 'GANTRY_MAX_WORKERS_PER_ENDPOINT',
    type: integer(1, 100_000),
    default: '100',
    description: "upper bound of an endpoint's workers.max, and of the workers its credential can make known at once",
  },
  jobLeaseMs: {
    flag: '--job-lease-ms <ms>',
    env: 'GANTRY_JOB_LEASE_MS',
    type: integer(200, 3_600_000),
    default: '30000',
    description: 'how long a taken job stays leased to its worker without a ping or result',
  },
  takeWaitMs: {
    flag: '--take-wait-ms <ms>',
    env: 'GANTRY_TAKE_WAIT_MS',
    type: integer(0, 80_000),
    default: '20000',
    description: 'how long job-take and job-stop long-polls are held before answering 204',
  },
  maxOutputBytes: {
    flag: '--max-output-bytes <n>',
    env: 'GANTRY_MAX_OUTPUT_BYTES',
    type: integer(1024, 512 * 1024 * 1024),
    default: String(20 * 1024 * 1024),
    defaultMeans: '20971520 (20 MiB)',
    description: 'largest job output stored; a larger one fails the job with a clear error',
  },
  webhookAllowCidrs: {
    flag: '--webhook-allow-cidrs <list>',
    env: 'GANTRY_WEBHOOK_ALLOW_CIDRS',
    type: cidrList,
    default: '',
    defaultMeans: 'none: private, loopback and link-local targets are refused',
    description: 'private, loopback or link-local address ranges webhooks may reach nonetheless',
  },
  streamWaitMs: {
    flag: '--stream-wait-ms <ms>',
    env: 'GANTRY_STREAM_WAIT_MS',
    type: integer(0, 60_000),
    default: '5000',
    description: 'how long a stream read waits for a chunk before answering with none',
  },
  maxLeaseLosses: {
    flag: '--max-lease-losses <n>',
    env: 'GANTRY_MAX_LEASE_LOSSES',
    type: integer(1, 100),
    default: '3',
    description: 'a job lost this many times (its worker crashed or its lease lapsed) fails instead of going back to the queue',
  },
  sweepIntervalMs: {
    flag: '--sweep-interval-ms <ms>',
    env: 'GANTRY_SWEEP_INTERVAL_MS',
    type: integer(10, 60_000),
    default: '500',
    description: 'period of the sweeper that enforces timeouts, expiries and leases',
  },
  meteringIntervalMs: {
    flag: '--metering-interval-ms <ms>',
    env: 'GANTRY_METERING_INTERVAL_MS',
    type: integer(100, 3_600_000),
    default: '60000',
    description: 'how often the leader records usage for billing; at most this much of a replica that dies unannounced goes unbilled',
  },
  workerSampleIntervalMs: {
    flag: '--worker-sample-interval-ms <ms>',
    env: 'GANTRY_WORKER_SAMPLE_INTERVAL_MS',
    type: integer(100, 300_000),
    default: '15000',
    description:
      "how often the leader records each endpoint's workers by state, for the history the series route and the console chart (kept 24 h)",
  },
  workerPingIntervalMs: {
    flag: '--worker-ping-interval-ms <ms>',
    env: 'GANTRY_WORKER_PING_INTERVAL_MS',
    type: integer(100, 600_000),
    default: '10000',
    description: 'ping period handed to workers (RUNPOD_PING_INTERVAL)',
  },
  workerProvider: {
    flag: '--worker-provider <name>',
    env: 'GANTRY_WORKER_PROVIDER',
    type: choice(['process', 'docker', 'none']),
    default: 'process',
    description:
      "process: Gantry runs endpoints' workers as local processes; docker: as containers of their image on the Docker engine DOCKER_HOST names (docs/providers.md); none: workers are started by hand",
  },
  dockerNetwork: {
    flag: '--docker-network <mode>',
    env: 'GANTRY_DOCKER_NETWORK',
    type: choice(['host', 'bridge']),
    default: 'host',
    description:
      "docker: host shares the host's network (workers reach Gantry at --replica-url, load-balancing workers listen on their PORT); bridge gives each container its own, with ports published on 127.0.0.1",
  },
  dockerWorkerApiUrl: {
    flag: '--docker-worker-api-url <url>',
    env: 'GANTRY_DOCKER_WORKER_API_URL',
    type: httpUrl,
    default: { from: ({ port }) => `http://host.docker.internal:${port}`, says: 'http://host.docker.internal:<port>' },
    description: 'docker, bridge network: the address containers call Gantry at (Gantry must listen where it leads, e.g. --host 0.0.0.0)',
  },
  workerWorkDir: {
    flag: '--worker-work-dir <dir>',
    env: 'GANTRY_WORKER_WORK_DIR',
    type: path,
    default: '.',
    defaultMeans: 'the directory Gantry was started in',
    description: 'working directory of local worker processes',
  },
  scaleIntervalMs: {
    flag: '--scale-interval-ms <ms>',
    env: 'GANTRY_SCALE_INTERVAL_MS',
    type: integer(20, 60_000),
    default: '1000',
    description: "period of the autoscaler's control loop",
  },
  workerInitTimeoutMs: {
    flag: '--worker-init-timeout-ms <ms>',
    env: 'GANTRY_WORKER_INIT_TIMEOUT_MS',
    type: integer(500, 3_600_000),
    default: '300000',
    description:
      'a started worker that has not called the server by then is UNHEALTHY and replaced at once, counted as a failed start (the endpoint backs off)',
  },
  workerStopGraceMs: {
    flag: '--worker-stop-grace-ms <ms>',
    env: 'GANTRY_WORKER_STOP_GRACE_MS',
    type: integer(0, 600_000),
    default: '10000',
    description:
      'SIGTERM to SIGKILL when a worker is stopped; a shutdown (SIGTERM, SIGINT) ends within it plus a few seconds, cutting requests still open',
  },
  crashBackoffMs: {
    flag: '--crash-backoff-ms <ms>',
    env: 'GANTRY_CRASH_BACKOFF_MS',
    type: integer(10, 600_000),
    default: '1000',
    description: 'first delay before replacing a crashed worker; it doubles per crash in a row, up to a minute',
  },
  lbHoldMs: {
    flag: '--lb-hold-ms <ms>',
    env: 'GANTRY_LB_HOLD_MS',
    type: integer(0, 600_000),
    default: '30000',
    description: 'how long a load-balanced request waits for a ready worker with room before 503',
  },
  lbHealthIntervalMs: {
    flag: '--lb-health-interval-ms <ms>',
    env: 'GANTRY_LB_HEALTH_INTERVAL_MS',
    type: integer(20, 60_000),
    default: '1000',
    description: 'period of health checks of ready load-balancing workers (starting ones are checked more often)',
  },
  lbUnhealthyMs: {
    flag: '--lb-unhealthy-ms <ms>',
    env: 'GANTRY_LB_UNHEALTHY_MS',
    type: integer(0, 3_600_000),
    default: '10000',
    description: 'a load-balancing worker unhealthy this long after it was ready is replaced',
  },
  lbTunnelIdleMs: {
    flag: '--lb-tunnel-idle-ms <ms>',
    env: 'GANTRY_LB_TUNNEL_IDLE_MS',
    type: integer(100, 86_400_000),
    default: '600000',
    description: 'a load-balancer tunnel (WebSocket) with no traffic either way this long is closed and its worker slot freed',
  },
  metricsToken: {
    flag: '--metrics-token <token>',
    env: 'GANTRY_METRICS_TOKEN',
    type: secretToken,
    defaultMeans: 'none: /metrics shows each API key its own account only',
    description: "bearer token of the operator's scraper: with it /metrics shows every account",
  },
  metricsOpen: {
    flag: '--metrics-open <yes/no>',
    env: 'GANTRY_METRICS_OPEN',
    type: choice(['no', 'yes']),
    default: 'no',
    description: "serve every account's /metrics without credentials (only on a private address)",
  },
  logLevel: {
    flag: '--log-level <level>',
    env: 'GANTRY_LOG_LEVEL',
    type: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'how much the server logs',
  },
  requestLogLevel: {
    flag: '--request-log-level <level>',
    env: 'GANTRY_REQUEST_LOG_LEVEL',
    type: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace']),
    default: 'debug',
    description: 'level of the per-request log lines (incoming, completed); a failed request still logs at error',
  },
} as const satisfies Record<string, Setting<unknown>>;

export type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
