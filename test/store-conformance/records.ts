// Records to store, each with a fresh id and a later creation time than the one before, so order
// assertions do not depend on the clock.
import type { EndpointSpec, TemplateSpec } from '../../src/domain/endpoint-spec.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  EndpointRecord,
  NetworkVolumeRecord,
  ReleaseRecord,
  TemplateRecord,
} from '../../src/store/store.js';
import type { JobWriter, NewJob } from '../../src/store/job-store.js';
import type { RegistryAuthRecord } from '../../src/store/registry-auth-store.js';
import type { SecretRecord } from '../../src/store/secret-store.js';

let counter = 0;
const EPOCH = Date.parse('2030-01-01T00:00:00.000Z');
/** Job times (epoch ms) are far from any real clock, so a sweep test is never racing Date.now(). */
export const NOW = 1_800_000_000_000;

function next(prefix: string): { id: string; at: string; n: number } {
  counter++;
  return { id: `${prefix}-${counter}`, at: new Date(EPOCH + counter * 1000).toISOString(), n: counter };
}

export function anAccount(name?: string): AccountRecord {
  const { id, at } = next('acct');
  return { id, name: name ?? `account-${id}`, createdAt: at };
}

export function anEndpointSpec(name: string): EndpointSpec {
  return {
    name,
    type: 'QUEUE',
    image: 'example/worker:1',
    disk: 10,
    ports: [],
    env: { MODE: 'test' },
    registry: null,
    args: '',
    entrypoint: [],
    cmd: ['python', 'handler.py'],
    gpu: { pools: ['AMPERE_16'], excludedTypes: [], count: 1, allowedCudaVersions: ['12.4'], minCudaVersion: null },
    cpu: null,
    workers: { min: 0, max: 3, idleTimeout: 10 },
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    dataCenterIds: ['EU-RO-1'],
    networkVolumes: [],
    timeout: 300_000,
    flashboot: 'OFF',
  };
}

export function anEndpoint(accountId: string, extra: Partial<EndpointRecord> = {}): EndpointRecord {
  const { id, at } = next('ep');
  return { id, accountId, spec: anEndpointSpec(`endpoint ${id}`), version: 1, revision: 1, createdAt: at, updatedAt: at, ...extra };
}

export function aRelease(endpointId: string, version: number, extra: Partial<ReleaseRecord> = {}): ReleaseRecord {
  const { id, at } = next('rel');
  return {
    id,
    endpointId,
    version,
    source: 'MANUAL',
    diff: [{ field: 'image', old: null, new: `example/worker:${version}` }],
    createdBy: null,
    createdAt: at,
    ...extra,
  };
}

export function aTemplateSpec(name: string, isPublic = false): TemplateSpec {
  return {
    name,
    serverless: true,
    public: isPublic,
    category: 'NVIDIA',
    startSsh: false,
    startJupyter: false,
    allowedCudaVersions: [],
    mounts: { persistent: { size: 20, path: '/workspace' } },
    image: 'example/template:1',
    disk: 10,
    ports: ['8888/http'],
    env: {},
    registry: null,
    args: '',
    entrypoint: [],
    cmd: [],
  };
}

export function aTemplate(accountId: string | null, extra: { name?: string; public?: boolean } = {}): TemplateRecord {
  const { id, at } = next('tpl');
  return { id, accountId, spec: aTemplateSpec(extra.name ?? `template ${id}`, extra.public), createdAt: at, updatedAt: at };
}

/** The sealed credential is any opaque text to the store. */
export function aRegistryAuth(accountId: string, extra: { name?: string } = {}): RegistryAuthRecord {
  const { id, at } = next('reg');
  return { id, accountId, name: extra.name ?? `registry ${id}`, sealedCredential: `gsb1.test.${id}`, createdAt: at };
}

/** The sealed value is any opaque text to the store. */
export function aSecret(accountId: string, extra: { name?: string } = {}): SecretRecord {
  const { id, at } = next('secret');
  return { accountId, name: extra.name ?? id.replace('-', '_'), sealedValue: `gsb1.test.${id}`, createdAt: at, updatedAt: at };
}

export function aKey(accountId: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const { id, at } = next('key');
  return {
    id,
    accountId,
    name: `key ${id}`,
    secretHash: 'ab'.repeat(32),
    permission: 'full',
    endpointIds: [],
    rateLimitExempt: false,
    expiresAt: null,
    revokedAt: null,
    createdAt: at,
    ...extra,
  };
}

export function aJob(endpointId: string, extra: Partial<NewJob> = {}): NewJob {
  const { id, n } = next('job');
  return {
    id,
    endpointId,
    accountId: 'acct',
    input: JSON.stringify({ n }),
    webhook: null,
    s3Config: null,
    executionTimeoutMs: 60_000,
    lowPriority: false,
    retentionMs: 60_000,
    ttlMs: 3_600_000,
    submittedAt: NOW + n,
    expiresAt: NOW + 3_600_000,
    ...extra,
  };
}

/** Writes stream chunks to a job of `endpointId` as a worker that holds none of its jobs (no lease changes). */
export function aStreamWriter(endpointId: string): JobWriter {
  return { endpointId, workerId: 'stream-writer', leaseUntil: NOW + 1_000_000 };
}

/** A fresh endpoint id, for job tests that need a queue of their own. */
export function aQueue(): string {
  return next('queue').id;
}

export function aNetworkVolume(accountId: string, extra: Partial<NetworkVolumeRecord['spec']> = {}): NetworkVolumeRecord {
  const { id, at } = next('vol');
  return {
    id,
    accountId,
    spec: { name: `volume ${id}`, size: 50, dataCenterId: 'LOCAL', type: 'STANDARD', ...extra },
    createdAt: at,
    updatedAt: at,
  };
}
