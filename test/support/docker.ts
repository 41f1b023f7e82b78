// What the Docker provider's tests need from the engine: whether one answers (tests skip, visibly,
// when none does, and fail instead when GANTRY_TEST_DOCKER_REQUIRED is set, as in CI), the
// test images (scripts/test-images.sh, cached), and the containers a Gantry data directory owns,
// so a test can look at them and remove whatever a failure left behind. Also the two ways those
// tests run a Gantry on the engine: in this process for the whole file, or as `gantry serve`
// processes a test starts and kills; either way no container outlives the file.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before } from 'node:test';
import Docker from 'dockerode';
import { dockerInstanceId } from '../../src/runtime/docker/instance-id.js';
import type { ConfigFlags } from '../../src/config.js';
import { startLive, type Live } from './live.js';
import { serve, stop, type ServeProcess } from './processes.js';
import { startedInBefore } from './started-in-before.js';

export const docker = new Docker();
/** ENTRYPOINT ["node"], CMD ["/app/examples/echo-worker.js"]; /app/examples/http-worker.js too. */
export const WORKER_IMAGE = 'gantry-test/worker:current';

/** Why tests against a real engine cannot run here, or undefined when they can. */
export async function dockerSkipReason(): Promise<string | undefined> {
  try {
    await docker.ping();
  } catch (error) {
    const reason = `no Docker engine answers (${(error as Error).message}); set DOCKER_HOST or start dockerd`;
    if (process.env.GANTRY_TEST_DOCKER_REQUIRED) throw new Error(reason);
    process.stdout.write(`# docker tests SKIPPED - ${reason}\n`);
    return reason;
  }
  const built = spawnSync('bash', ['scripts/test-images.sh'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`scripts/test-images.sh failed:\n${built.stderr}`);
  return undefined;
}

export async function containersOf(dataDir: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`gantry.instance=${dockerInstanceId(dataDir)}`] } });
}

export async function removeContainersOf(dataDir: string): Promise<void> {
  await removeInstanceContainers(dockerInstanceId(dataDir));
}

/** Removes every container labelled with this Gantry instance id, running or not. */
export async function removeInstanceContainers(instanceId: string): Promise<void> {
  for (const c of await docker.listContainers({ all: true, filters: { label: [`gantry.instance=${instanceId}`] } }))
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => undefined);
}

/**
 * A live Gantry on the docker provider for the file's tests: started before them with `flags`
 * (unless `skip`), closed after them, and every container of its data directory removed.
 */
export function useLiveOnDocker(skip: string | undefined, flags: ConfigFlags): Live {
  const live = startedInBefore<Live>('the Gantry on Docker');
  before(async () => {
    if (skip) return;
    live.set(await startLive({ workerProvider: 'docker', ...flags }));
  });
  after(async () => {
    const g = live.current;
    if (!g) return;
    await g.close();
    await removeContainersOf(g.dataDir);
  });
  return live.proxy;
}

/**
 * Starts `gantry serve` on the docker provider over `dataDir` (with `args`), as often as a test
 * asks: starting again on the same directory is how a restart is tested. After the file every
 * one still running is killed with SIGKILL, as a crash would, then the directory's containers and
 * the directory itself are removed.
 */
export function useServeOnDocker(skip: string | undefined, dataDir: string, args: string[] = []): () => Promise<ServeProcess> {
  const running: ServeProcess[] = [];
  after(async () => {
    for (const server of running) await stop(server.child, 'SIGKILL');
    if (!skip) await removeContainersOf(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return async () => {
    const server = await serve(['--data-dir', dataDir, '--worker-provider', 'docker', ...args]);
    running.push(server);
    return server;
  };
}
