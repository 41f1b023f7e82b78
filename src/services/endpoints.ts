// STUB — replaced by the endpoints work.
import type { Store } from '../store/store.js';
import type { Catalog } from '../catalog/catalog.js';
import type { TemplateService } from './templates.js';
import type { GantryConfig } from '../config.js';

export class EndpointService {
  constructor(
    readonly store: Store,
    readonly catalog: Catalog,
    readonly templates: TemplateService,
    readonly config: GantryConfig,
  ) {}
}
