// Turns a template create or update request into a complete, checked template configuration,
// and maps the catalog's public templates onto the same shape.
// Schema-shaped failures answer 422 before this runs; the container rules here answer 400.
import type { PublicTemplateEntry } from './catalog.js';
import { checkImageReference, checkPortsAndEnv, type ContainerFields, EMPTY_COMMAND, resolveCommand } from './container.js';
import { DEFAULT_DISK_GB, type TemplateCategory, type TemplateSpec } from './endpoint-spec.js';
import { Violations } from './errors.js';

export type TemplateMounts = TemplateSpec['mounts'];

/** Every field a template request may send; create requires name and image. */
export interface TemplateFields extends ContainerFields {
  name?: string;
  allowedCudaVersions?: string[];
  category?: TemplateCategory;
  mounts?: TemplateMounts;
  public?: boolean;
  serverless?: boolean;
  startJupyter?: boolean;
  startSsh?: boolean;
}

export interface CreateTemplateInput extends TemplateFields {
  name: string;
  image: string;
}

export type UpdateTemplateInput = TemplateFields;

/** What a template is when a request (or a catalog entry) leaves a field out; fresh lists each call. */
export function templateDefaults(): Omit<TemplateSpec, 'name' | 'image'> {
  return {
    ...EMPTY_COMMAND,
    entrypoint: [],
    cmd: [],
    disk: DEFAULT_DISK_GB,
    ports: [],
    env: {},
    registry: null,
    allowedCudaVersions: [],
    category: 'NVIDIA',
    mounts: {},
    public: false,
    serverless: false,
    startJupyter: true,
    startSsh: true,
  };
}

const RULES_DETAIL = 'request conflicts with the template rules';

/** A new template: the request's fields over the defaults, command resolved against an empty one. */
export function buildTemplateSpec(body: CreateTemplateInput): TemplateSpec {
  return applyTemplatePatch({ ...templateDefaults(), name: body.name, image: body.image }, body);
}

/**
 * Changes only the fields sent. `args` replaces the whole command, entrypoint / cmd alone replace
 * their part; `mounts` without `persistent` leaves the mount as it is; `allowedCudaVersions: []` clears.
 */
export function applyTemplatePatch(current: TemplateSpec, body: UpdateTemplateInput): TemplateSpec {
  const v = new Violations();
  const { args, entrypoint, cmd } = current;
  const command = resolveCommand(body, { args, entrypoint, cmd }, v);
  // Only what was sent is checked: stored values passed these rules when they were written.
  checkPortsAndEnv({ ports: body.ports ?? [], env: body.env ?? {} }, v);
  // Spaces alone name nothing: an endpoint or pod made from such a template would be refused.
  if (body.name !== undefined && body.name.trim() === '') v.add('name', 'must not be blank');
  if (body.image !== undefined) checkImageReference(body.image, v);
  v.throwIfAny(RULES_DETAIL);
  const persistent = body.mounts?.persistent;
  return {
    name: body.name ?? current.name,
    image: body.image ?? current.image,
    ...command,
    disk: body.disk ?? current.disk,
    ports: body.ports ?? current.ports,
    env: body.env ?? current.env,
    registry: body.registry === undefined ? current.registry : body.registry,
    allowedCudaVersions: body.allowedCudaVersions ?? current.allowedCudaVersions,
    category: body.category ?? current.category,
    mounts: persistent ? { persistent: { size: persistent.size, path: persistent.path } } : current.mounts,
    public: body.public ?? current.public,
    serverless: body.serverless ?? current.serverless,
    startJupyter: body.startJupyter ?? current.startJupyter,
    startSsh: body.startSsh ?? current.startSsh,
  };
}

/**
 * A catalog public template as a full configuration. Catalog entries may leave out any container
 * field; the command is derived the same way a request's would be, so args, entrypoint and cmd agree.
 */
export function templateSpecFromCatalog(entry: PublicTemplateEntry): TemplateSpec {
  const ignored = new Violations();
  const command = resolveCommand({ args: entry.args, entrypoint: entry.entrypoint, cmd: entry.cmd }, EMPTY_COMMAND, ignored);
  const defaults = templateDefaults();
  return {
    ...defaults,
    ...command,
    name: entry.name,
    image: entry.image,
    disk: entry.disk ?? defaults.disk,
    ports: entry.ports ?? [],
    env: entry.env ?? {},
    // Nobody owns a catalog template, so its registry credential is never handed out.
    registry: null,
    allowedCudaVersions: entry.allowedCudaVersions ?? [],
    category: entry.category ?? defaults.category,
    public: true,
    serverless: entry.serverless ?? false,
    startJupyter: entry.startJupyter ?? defaults.startJupyter,
    startSsh: entry.startSsh ?? defaults.startSsh,
  };
}
