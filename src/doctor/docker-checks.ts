// `gantry doctor`'s checks of the Docker engine, when workers run as containers: does it answer,
// which version and storage driver, can GPUs be requested, and can containers reach Gantry.
import Docker from 'dockerode';
import type { GantryConfig } from '../config.js';
import type { CheckResult } from './checks.js';
import { diskLimitSupport, type StorageInfo } from '../runtime/docker/disk-limit.js';

const ENGINE_TIMEOUT_MS = 5000;

interface EngineInfo extends StorageInfo {
  Runtimes?: Record<string, unknown>;
  NCPU?: number;
}

function engineAddress(): string {
  return process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}

export async function checkDocker(config: GantryConfig, docker = new Docker({ timeout: ENGINE_TIMEOUT_MS })): Promise<CheckResult[]> {
  let version: Docker.DockerVersion;
  let info: EngineInfo;
  try {
    version = await docker.version();
    info = (await docker.info()) as EngineInfo;
  } catch (error) {
    return [
      {
        status: 'fail',
        name: 'docker',
        detail: `no engine answers at ${engineAddress()}: ${(error as Error).message}: start dockerd or set DOCKER_HOST`,
      },
    ];
  }
  const runtimes = Object.keys(info.Runtimes ?? {});
  return [
    {
      status: 'ok',
      name: 'docker',
      detail: `Docker Engine ${version.Version} (API ${version.ApiVersion}) at ${engineAddress()}, ${info.NCPU ?? '?'} CPUs`,
    },
    { status: 'ok', name: 'storage', detail: `storage driver ${info.Driver ?? 'unknown'}` },
    diskVerdict(info),
    runtimes.includes('nvidia')
      ? { status: 'ok', name: 'gpus', detail: 'the nvidia runtime is installed: GPU workers can be given their devices' }
      : {
          status: 'warn',
          name: 'gpus',
          detail: `no nvidia runtime (runtimes: ${runtimes.join(', ') || 'none'}): GPU workers cannot start; install the NVIDIA Container Toolkit`,
        },
    networkVerdict(config),
  ];
}

/** An endpoint's `disk` is a limit only where the storage driver can cap the writable layer. */
function diskVerdict(info: StorageInfo): CheckResult {
  const support = diskLimitSupport(info);
  return support.supported
    ? { status: 'ok', name: 'disk', detail: "endpoints' disk limits each container's writable layer" }
    : { status: 'warn', name: 'disk', detail: `endpoints' disk is recorded, not enforced: ${support.reason}` };
}

/** Bridge-mode containers call Gantry from outside the host's loopback: it must listen there. */
function networkVerdict(config: GantryConfig): CheckResult {
  if (config.dockerNetwork === 'host') return { status: 'ok', name: 'network', detail: `host: workers call ${config.replicaUrl}` };
  const loopbackOnly = config.host === '127.0.0.1' || config.host === '::1' || config.host === 'localhost';
  return loopbackOnly
    ? {
        status: 'warn',
        name: 'network',
        detail: `bridge: workers call ${config.dockerWorkerApiUrl}, but Gantry listens on ${config.host} only: use --host 0.0.0.0 (or the bridge address)`,
      }
    : { status: 'ok', name: 'network', detail: `bridge: workers call ${config.dockerWorkerApiUrl}` };
}
