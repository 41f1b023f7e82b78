// Endpoint lifecycle: create, read, update, delete, scoped to the caller's account.
import type { Clock } from '../domain/clock.js';
import type { WebhookSecretService } from './webhook-secrets.js';
import type { Store, EndpointRecord, ReleaseRecord } from '../store/store.js';
import type { EndpointSpec } from '../domain/endpoint-spec.js';
import type { Catalog } from '../domain/catalog.js';
import type { TemplateService } from './templates.js';
import type { RegistryAuthService } from './registry-auths.js';
import type { AccountSecretService } from './account-secrets.js';
import type { GantryConfig } from '../config.js';
import {
  applyEndpointPatch,
  buildEndpointSpec,
  changedWorkerFields,
  type AccountVolumes,
  type CreateEndpointInput,
  type TemplateDefaults,
  type UpdateEndpointInput,
} from '../domain/endpoint-rules.js';
import { conflict, notFound } from '../domain/errors.js';
import { newEndpointId, randomId } from '../domain/ids.js';

/** Concurrent PATCHes of one endpoint are re-applied on the newer row this many times before giving up. */
const UPDATE_ATTEMPTS = 5;

export class EndpointService {
  private readonly listeners: ((endpointId: string) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly templates: TemplateService,
    private readonly registries: Pick<RegistryAuthService, 'ensureUsable'>,
    private readonly secrets: Pick<AccountSecretService, 'ensureReferencesExist'>,
    private readonly config: GantryConfig,
    private readonly webhookSecrets?: Pick<WebhookSecretService, 'secretOf'>,
    /** The cluster's clock: records are listed in the order they were made, whichever replica made them. */
    private readonly now: Clock = Date.now,
  ) {}

  /** Called after an endpoint is created, changed or deleted, so the runtime acts without waiting. */
  onChanged(listener: (endpointId: string) => void): void {
    this.listeners.push(listener);
  }

  private changed(endpointId: string): void {
    for (const listener of this.listeners) listener(endpointId);
  }

  private templateFor(accountId: string, templateId: string | undefined): Promise<TemplateDefaults | undefined> {
    return templateId === undefined ? Promise.resolve(undefined) : this.templates.resolveForEndpoint(accountId, templateId);
  }

  async create(accountId: string, body: CreateEndpointInput, now = new Date(this.now())): Promise<EndpointRecord> {
    const template = await this.templateFor(accountId, body.templateId);
    const spec = buildEndpointSpec(body, template, this.catalog, this.config, await this.volumesOf(accountId, body.networkVolumes));
    await this.registries.ensureUsable(accountId, spec.registry);
    // A template's env comes along, so its references must resolve in this account too.
    await this.secrets.ensureReferencesExist(accountId, spec.env);
    const record: EndpointRecord = {
      id: newEndpointId(),
      accountId,
      spec,
      version: 1,
      revision: 1,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.store.insertEndpoint(record, release(record, undefined, now));
    // Its webhook secret is made with it; when secrets cannot be sealed yet (no --secret-key on
    // PostgreSQL) the first delivery or the owner's first request makes it instead.
    await this.webhookSecrets?.secretOf(record.id).catch(() => undefined);
    this.changed(record.id);
    return record;
  }

  /** The caller's network volumes among `ids`: only its own count, another account's are unknown. */
  private async volumesOf(accountId: string, ids: string[] | undefined): Promise<AccountVolumes> {
    if (!ids || ids.length === 0) return new Map();
    const own = await this.store.listNetworkVolumes(accountId);
    return new Map(
      own.filter((volume) => ids.includes(volume.id)).map((volume) => [volume.id, { dataCenterId: volume.spec.dataCenterId }]),
    );
  }

  async releases(accountId: string, id: string): Promise<ReleaseRecord[]> {
    await this.get(accountId, id);
    return this.store.listReleases(id);
  }

  list(accountId: string): Promise<EndpointRecord[]> {
    return this.store.listEndpoints(accountId);
  }

  async get(accountId: string, id: string): Promise<EndpointRecord> {
    const record = await this.store.getEndpoint(accountId, id);
    if (!record) throw notFound(`endpoint ${id} not found`);
    return record;
  }

  async update(accountId: string, id: string, body: UpdateEndpointInput, now = new Date(this.now())): Promise<EndpointRecord> {
    const template = await this.templateFor(accountId, body.templateId);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.get(accountId, id);
      const spec = applyEndpointPatch(
        current.spec,
        body,
        template,
        this.catalog,
        this.config,
        await this.volumesOf(accountId, body.networkVolumes ?? current.spec.networkVolumes),
      );
      if (spec.registry !== current.spec.registry) await this.registries.ensureUsable(accountId, spec.registry);
      if (spec.env !== current.spec.env) await this.secrets.ensureReferencesExist(accountId, spec.env);
      const versionChanged = changedWorkerFields(current.spec, spec).length > 0;
      const next: EndpointRecord = {
        ...current,
        spec,
        version: versionChanged ? current.version + 1 : current.version,
        revision: current.revision + 1,
        updatedAt: now.toISOString(),
      };
      const newRelease = versionChanged ? release(next, current.spec, now) : undefined;
      if (await this.store.updateEndpoint(next, current.revision, newRelease)) {
        this.changed(id);
        return next;
      }
    }
    throw conflict(`endpoint ${id} is being changed by other requests; try again`);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.store.deleteEndpoint(accountId, id))) throw notFound(`endpoint ${id} not found`);
    this.changed(id);
  }
}

/** A release for the record's version; its diff lists each worker field that changed (old null on creation). */
function release(record: EndpointRecord, before: EndpointSpec | undefined, now: Date): ReleaseRecord {
  const fields = changedWorkerFields(before, record.spec);
  return {
    id: `rel_${randomId(12)}`,
    endpointId: record.id,
    version: record.version,
    source: 'MANUAL',
    diff: fields.map((field) => ({ field, old: before ? before[field] : null, new: record.spec[field] })),
    createdBy: record.accountId,
    createdAt: now.toISOString(),
  };
}
