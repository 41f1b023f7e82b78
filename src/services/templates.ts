// Template lifecycle and lookup. A caller sees its own templates, other accounts' public ones and
// the catalog's public templates; it changes only its own. Anything else answers 404 like an unknown id.
import type { Clock } from '../domain/clock.js';
import type { Store, TemplateRecord } from '../store/store.js';
import type { Catalog } from '../domain/catalog.js';
import type { ContainerSettings, TemplateSpec } from '../domain/endpoint-spec.js';
import {
  applyTemplatePatch,
  buildTemplateSpec,
  templateSpecFromCatalog,
  type CreateTemplateInput,
  type UpdateTemplateInput,
} from '../domain/template-rules.js';
import { ApiError, notFound } from '../domain/errors.js';
import type { PodTemplateDefaults } from '../domain/pod-rules.js';
import { newTemplateId } from '../domain/ids.js';
import type { RegistryAuthService } from './registry-auths.js';
import type { AccountSecretService } from './account-secrets.js';

export interface ResolvedTemplate {
  settings: ContainerSettings;
  allowedCudaVersions: string[];
}

/** A template as one caller may see it; `owned` decides whether secrets such as the registry are shown. */
export interface VisibleTemplate {
  id: string;
  spec: TemplateSpec;
  owned: boolean;
}

const owned = (record: TemplateRecord): VisibleTemplate => ({ id: record.id, spec: record.spec, owned: true });

export class TemplateService {
  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly registries: Pick<RegistryAuthService, 'ensureUsable'>,
    private readonly secrets: Pick<AccountSecretService, 'ensureReferencesExist'>,
    /** The cluster's clock: records are listed in the order they were made, whichever replica made them. */
    private readonly now: Clock = Date.now,
  ) {}

  async create(accountId: string, body: CreateTemplateInput, now = new Date(this.now())): Promise<VisibleTemplate> {
    const spec = buildTemplateSpec(body);
    await this.registries.ensureUsable(accountId, spec.registry);
    await this.secrets.ensureReferencesExist(accountId, spec.env);
    await this.ensureNameFree(accountId, spec.name);
    const record: TemplateRecord = {
      id: newTemplateId(),
      accountId,
      spec,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.writeUniquely(accountId, spec.name, record.id, () => this.store.insertTemplate(record));
    return owned(record);
  }

  async list(accountId: string): Promise<VisibleTemplate[]> {
    return (await this.store.listTemplates(accountId)).map(owned);
  }

  async get(accountId: string, id: string): Promise<VisibleTemplate> {
    const found = await this.findVisible(accountId, id);
    if (!found) throw notFound(`template ${id} not found`);
    return found;
  }

  /** Whether the caller may use the template: its own, another account's public one, or the catalog's. */
  async visible(accountId: string, id: string): Promise<boolean> {
    return (await this.findVisible(accountId, id)) !== undefined;
  }

  async update(accountId: string, id: string, body: UpdateTemplateInput, now = new Date(this.now())): Promise<VisibleTemplate> {
    const current = await this.getOwned(accountId, id);
    const spec = applyTemplatePatch(current.spec, body);
    if (spec.registry !== current.spec.registry) await this.registries.ensureUsable(accountId, spec.registry);
    if (spec.env !== current.spec.env) await this.secrets.ensureReferencesExist(accountId, spec.env);
    if (spec.name !== current.spec.name) await this.ensureNameFree(accountId, spec.name, id);
    const next: TemplateRecord = { ...current, spec, updatedAt: now.toISOString() };
    await this.writeUniquely(accountId, spec.name, id, () => this.store.updateTemplate(next));
    return owned(next);
  }

  /**
   * Endpoints copy a template's settings when they are created and keep no link to it,
   * so deleting a template never changes an endpoint.
   */
  /**
   * 400 while an endpoint was made from or updated with it, as the API document has it: endpoints
   * keep a copy of its settings, but still name it (GraphQL's templateId).
   */
  async delete(accountId: string, id: string): Promise<void> {
    if ((await this.store.getTemplate(id))?.accountId !== accountId) throw notFound(`template ${id} not found`);
    const users = (await this.store.listEndpoints(accountId)).filter((endpoint) => endpoint.spec.templateId === id);
    if (users.length > 0) {
      throw new ApiError(
        400,
        `template ${id} is in use by ${users.map((e) => `endpoint ${e.id} ('${e.spec.name}')`).join(', ')}: apply another template to them or delete them first`,
      );
    }
    if (!(await this.store.deleteTemplate(accountId, id))) throw notFound(`template ${id} not found`);
  }

  /** A template an account may base an endpoint on: 404 unknown or inaccessible, 422 not serverless. */
  async resolveForEndpoint(accountId: string, templateId: string): Promise<ResolvedTemplate> {
    const found = await this.findVisible(accountId, templateId);
    if (!found) throw notFound(`template ${templateId} not found`);
    const { spec } = found;
    if (!spec.serverless) {
      throw new ApiError(422, `template ${templateId} is not a serverless template`, [
        `templateId: template ${templateId} is not a serverless template; only serverless templates can configure an endpoint`,
      ]);
    }
    return { settings: containerSettingsOf(found), allowedCudaVersions: [...spec.allowedCudaVersions] };
  }

  /** A template an account may base a pod on: 404 unknown or inaccessible, 422 a serverless one. */
  async resolveForPod(accountId: string, templateId: string): Promise<PodTemplateDefaults> {
    const found = await this.findVisible(accountId, templateId);
    if (!found) throw notFound(`template ${templateId} not found`);
    const { spec } = found;
    if (spec.serverless) {
      throw new ApiError(422, `template ${templateId} is a serverless template`, [
        `templateId: template ${templateId} is a serverless template; a pod is created from a pod template`,
      ]);
    }
    return {
      settings: containerSettingsOf(found),
      allowedCudaVersions: [...spec.allowedCudaVersions],
      persistent: spec.mounts.persistent ? { ...spec.mounts.persistent } : null,
      startSsh: spec.startSsh,
      startJupyter: spec.startJupyter,
    };
  }

  /** Own, another account's public, or a catalog public template; undefined for anything else. */
  private async findVisible(accountId: string, id: string): Promise<VisibleTemplate | undefined> {
    const record = await this.store.getTemplate(id);
    if (record && record.accountId === accountId) return owned(record);
    if (record && record.spec.public) return { id, spec: record.spec, owned: false };
    const entry = this.catalog.publicTemplate(id);
    return entry ? { id, spec: templateSpecFromCatalog(entry), owned: false } : undefined;
  }

  private async getOwned(accountId: string, id: string): Promise<TemplateRecord> {
    const record = await this.store.getTemplate(id);
    if (!record || record.accountId !== accountId) throw notFound(`template ${id} not found`);
    return record;
  }

  private async ensureNameFree(accountId: string, name: string, exceptId?: string): Promise<void> {
    if (await this.store.templateNameTaken(accountId, name, exceptId)) {
      throw new ApiError(409, `a template named '${name}' already exists in this account`, [
        `name: '${name}' is already used by another template of this account`,
      ]);
    }
  }

  /** A concurrent request may take the name between the check and the write; the store's uniqueness catches it. */
  private async writeUniquely(accountId: string, name: string, id: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      await this.ensureNameFree(accountId, name, id);
      throw error;
    }
  }
}

/** A template's container settings; another account's registry credential is not lent. */
function containerSettingsOf({ spec, owned }: VisibleTemplate): ContainerSettings {
  return {
    image: spec.image,
    args: spec.args,
    entrypoint: [...spec.entrypoint],
    cmd: [...spec.cmd],
    disk: spec.disk,
    ports: [...spec.ports],
    env: { ...spec.env },
    registry: owned ? spec.registry : null,
  };
}
