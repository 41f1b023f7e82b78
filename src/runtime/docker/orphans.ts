// Containers this Gantry instance started but no longer tracks: left by a Gantry that was
// killed (kill -9, power loss) before it could stop them. They hold capacity and may still be
// taking jobs with credentials nobody tracks, so they are removed.
import type Docker from 'dockerode';
import { LABELS } from './container-config.js';

export async function removeOrphans(docker: Docker, instanceId: string, tracked: (workerId: string) => boolean): Promise<string[]> {
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.managed}=1`, `${LABELS.instance}=${instanceId}`] },
  });
  // Pods' containers are not workers: the pod service reconciles them with their rows.
  const orphans = containers.filter((c) => c.Labels[LABELS.pod] === undefined && !tracked(c.Labels[LABELS.worker] ?? ''));
  await Promise.all(
    orphans.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
  return orphans.map((c) => c.Names[0]?.replace(/^\//, '') ?? c.Id);
}
