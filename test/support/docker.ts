// What the Docker provider's tests need from the engine: whether one answers (tests skip, visibly,
// when none does, and fail instead when GANTRY_TEST_DOCKER_REQUIRED is set, as in CI), the
// test images (scripts/test-images.sh, cached), and the containers a Gantry data directory owns,
// so a test can look at them and remove whatever a failure left behind.
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { dockerInstanceId } from '../../src/runtime/docker/instance-id.js';

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
  for (const c of await containersOf(dataDir))
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => undefined);
}
