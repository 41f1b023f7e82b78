// What a pod's container starts with, resolved at every start: its env with the account's secret
// references replaced, PUBLIC_KEY from the account's SSH keys when the pod was created with
// startSsh, its storage directories and the registry login its image is pulled with.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PodRecord } from '../store/pod-store.js';
import type { PodLaunch } from '../runtime/pod-engine.js';
import type { SecretEnvironment } from '../runtime/ports.js';
import type { VolumeDirectories } from '../runtime/volumes/volume-directories.js';
import { podPorts } from '../domain/pod.js';
import type { SshKeyService } from './ssh-keys.js';
import type { RegistryAuthService } from './registry-auths.js';

const SAFE_ID = /^[a-z0-9]+$/;

export class PodLauncher {
  constructor(
    private readonly podRoot: string,
    private readonly volumes: VolumeDirectories,
    private readonly secrets: SecretEnvironment,
    private readonly sshKeys: Pick<SshKeyService, 'list'>,
    private readonly registries: Pick<RegistryAuthService, 'loginOf'>,
  ) {}

  /** The host directory of a pod's persistent volume. */
  volumePath(podId: string): string {
    if (!SAFE_ID.test(podId)) throw new Error(`not a pod id: '${podId}'`);
    return join(this.podRoot, podId);
  }

  async launchOf(pod: PodRecord): Promise<PodLaunch> {
    const { spec } = pod;
    const env = await this.secrets.resolve(pod.accountId, spec.env);
    if (spec.startSsh && env.PUBLIC_KEY === undefined) {
      const keys = await this.sshKeys.list(pod.accountId);
      if (keys.length > 0) env.PUBLIC_KEY = keys.join('\n');
    }
    const mounts: PodLaunch['mounts'] = [];
    if (spec.persistent) {
      const hostPath = this.volumePath(pod.id);
      await mkdir(hostPath, { recursive: true, mode: 0o700 });
      mounts.push({ hostPath, path: spec.persistent.path });
    }
    if (spec.network) mounts.push({ hostPath: this.volumes.pathOf(spec.network.volumeId), path: spec.network.path });
    return {
      podId: pod.id,
      image: spec.image,
      entrypoint: spec.entrypoint,
      cmd: spec.cmd,
      env,
      ports: podPorts(spec.ports),
      gpuDeviceIds: pod.placement?.deviceIds ?? [],
      vcpuCount: spec.cpu?.vcpuCount ?? null,
      memoryGb: spec.cpu?.memory ?? null,
      diskGb: spec.disk,
      mounts,
      ...(spec.registry ? { registryLogin: await this.registries.loginOf(pod.accountId, spec.registry, "the pod's") } : {}),
    };
  }
}
