// saveTemplate's input as the REST v2 template body: imageName -> image, dockerArgs -> args,
// containerDiskInGb -> disk, volumeInGb + volumeMountPath -> mounts.persistent, "8888/http,22/tcp"
// -> ports, [{key, value}] -> env, isServerless / isPublic -> serverless / public, "" registry -> null.
import type { TemplateSpec } from '../../../domain/endpoint-spec.js';
import { ApiError } from '../../problem.js';
import type { EnvironmentVariable } from '../context.js';
import { given, onlyGiven } from '../given.js';
import { commaList, envRecord, type FieldNames } from '../rest-body.js';

export interface SaveTemplateInput {
  id?: string | null;
  name?: string | null;
  imageName?: string | null;
  dockerArgs?: string | null;
  containerDiskInGb?: number | null;
  volumeInGb?: number | null;
  volumeMountPath?: string | null;
  ports?: string | null;
  env?: EnvironmentVariable[] | null;
  isServerless?: boolean | null;
  isPublic?: boolean | null;
  startSsh?: boolean | null;
  startJupyter?: boolean | null;
  containerRegistryAuthId?: string | null;
  category?: string | null;
  readme?: string | null;
}

/** Where a volume is mounted when the input gives a size and no path. */
const DEFAULT_VOLUME_PATH = '/workspace';

export const TEMPLATE_FIELD_NAMES: FieldNames = [
  ['mounts.persistent.size', 'volumeInGb'],
  ['mounts.persistent.path', 'volumeMountPath'],
  ['mounts', 'volumeInGb'],
  ['image', 'imageName'],
  ['args', 'dockerArgs'],
  ['entrypoint', 'dockerArgs'],
  ['cmd', 'dockerArgs'],
  ['disk', 'containerDiskInGb'],
  ['serverless', 'isServerless'],
  ['public', 'isPublic'],
  ['registry', 'containerRegistryAuthId'],
];

/** volumeInGb 0 means no volume; REST has no way to remove one from a template, so neither has this. */
function mountsOf(input: SaveTemplateInput, current: TemplateSpec | undefined): TemplateSpec['mounts'] | undefined {
  const mounted = current?.mounts.persistent;
  const size = input.volumeInGb;
  const path = input.volumeMountPath;
  if (size === 0) {
    if (!mounted) return undefined;
    throw new ApiError(400, 'request conflicts with the template rules', [
      `volumeInGb: 0 cannot remove the ${mounted.size} GB volume of an existing template; make a new template without one`,
    ]);
  }
  if (given(size)) return { persistent: { size, path: path ?? mounted?.path ?? DEFAULT_VOLUME_PATH } };
  if (given(path) && mounted) return { persistent: { size: mounted.size, path } };
  return undefined;
}

/** The REST body of a create (no `current`) or of a change to `current`; only fields given are set. */
export function templateBody(input: SaveTemplateInput, current?: TemplateSpec): Record<string, unknown> {
  const registry = input.containerRegistryAuthId;
  return onlyGiven({
    name: input.name,
    image: input.imageName,
    args: input.dockerArgs,
    disk: input.containerDiskInGb,
    mounts: mountsOf(input, current),
    ports: given(input.ports) ? commaList(input.ports) : undefined,
    env: given(input.env) ? envRecord(input.env) : undefined,
    serverless: input.isServerless,
    public: input.isPublic,
    startSsh: input.startSsh,
    startJupyter: input.startJupyter,
    category: input.category,
    // "" is how the SDK says "no credential"; null is REST's.
    registry: given(registry) ? (registry === '' ? null : registry) : undefined,
  });
}
