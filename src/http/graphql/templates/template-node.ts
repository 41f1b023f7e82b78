// A template as GraphQL's PodTemplate: REST's fields under the legacy names.
import type { VisibleTemplate } from '../../../services/templates.js';
import { envList } from '../context.js';

export function templateNode({ id, spec, owned }: VisibleTemplate) {
  const volume = spec.mounts.persistent;
  return {
    id,
    name: spec.name,
    imageName: spec.image,
    dockerArgs: spec.args,
    containerDiskInGb: spec.disk,
    volumeInGb: volume?.size ?? 0,
    volumeMountPath: volume?.path ?? null,
    ports: spec.ports.join(','),
    env: envList(spec.env),
    isServerless: spec.serverless,
    isPublic: spec.public,
    startSsh: spec.startSsh,
    startJupyter: spec.startJupyter,
    containerRegistryAuthId: owned ? spec.registry : null,
    category: spec.category,
    readme: null,
  };
}
