// The template as clients see it: its configuration, with the registry credential shown only to the owner.
import type { VisibleTemplate } from '../../services/templates.js';

export function templateView({ id, spec, owned }: VisibleTemplate) {
  return {
    id,
    name: spec.name,
    image: spec.image,
    args: spec.args,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    disk: spec.disk,
    mounts: spec.mounts,
    ports: spec.ports,
    env: spec.env,
    registry: owned ? spec.registry : null,
    serverless: spec.serverless,
    public: spec.public,
    category: spec.category,
    startSsh: spec.startSsh,
    startJupyter: spec.startJupyter,
    allowedCudaVersions: spec.allowedCudaVersions,
  };
}
