// STUB — replaced by the templates work.
import type { Store } from '../store/store.js';
import type { Catalog } from '../catalog/catalog.js';
import type { ContainerSettings } from '../domain/endpoint-spec.js';
import { notFound } from '../http/problem.js';

export interface ResolvedTemplate {
  settings: ContainerSettings;
  allowedCudaVersions: string[];
}

export class TemplateService {
  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
  ) {}

  /** A template an account may base an endpoint on: 404 unknown or inaccessible, 422 not serverless. */
  async resolveForEndpoint(_accountId: string, templateId: string): Promise<ResolvedTemplate> {
    void this.store;
    void this.catalog;
    throw notFound(`template ${templateId} not found`);
  }
}
