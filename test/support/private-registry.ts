// A private image registry for Docker tests: Debian's docker-registry on a loopback port with
// htpasswd auth (the engine allows plain HTTP there), holding the test worker image under
// `image`, which is then dropped from the engine so that starting a worker has to pull it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker, WORKER_IMAGE } from './docker.js';
import { eventually } from './live.js';
import { freePort } from '../../src/runtime/free-ports.js';

export interface PrivateRegistry {
  /** The pushed image, `127.0.0.1:<port>/<repository>:1`. */
  image: string;
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Removes the image from the engine again, so the next start must pull. */
  forgetImage(): Promise<void>;
  close(): Promise<void>;
}

const tools = ['docker-registry', 'htpasswd'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);

/** Why the registry cannot run here (tools missing), or undefined; fails instead under GANTRY_TEST_DOCKER_REQUIRED. */
export function privateRegistrySkipReason(): string | undefined {
  if (tools.length === 0) return undefined;
  const reason = `${tools.join(' and ')} missing: apt-get install docker-registry apache2-utils`;
  if (process.env.GANTRY_TEST_DOCKER_REQUIRED) throw new Error(reason);
  process.stdout.write(`# private registry tests SKIPPED - ${reason}\n`);
  return reason;
}

export async function startPrivateRegistry(login: { username: string; password: string }, repository: string): Promise<PrivateRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-registry-'));
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const image = `${address}/${repository}:1`;
  const hash = spawnSync('htpasswd', ['-Bbn', login.username, login.password], { encoding: 'utf8' });
  writeFileSync(join(dir, 'htpasswd'), hash.stdout);
  writeFileSync(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: {level: error}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
      `http: {addr: "${address}"}`,
      `auth: {htpasswd: {realm: gantry-test, path: ${join(dir, 'htpasswd')}}}`,
    ].join('\n'),
  );
  const registry: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  const forgetImage = () =>
    docker
      .getImage(image)
      .remove({ force: true })
      .then(
        () => undefined,
        () => undefined,
      );
  const close = async () => {
    await forgetImage();
    registry.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(async () => (await fetch(`http://${address}/v2/`).catch(() => undefined))?.status === 401, 10_000, 50);
    await docker.getImage(WORKER_IMAGE).tag({ repo: image.slice(0, image.lastIndexOf(':')), tag: '1' });
    const push = await docker.getImage(image).push({ authconfig: { ...login, serveraddress: address } });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(push, (err, out: { error?: string }[]) => {
        const failed = err?.message ?? out.find((e) => e.error)?.error;
        if (failed) reject(new Error(failed));
        else resolve();
      }),
    );
    await forgetImage();
  } catch (error) {
    await close();
    throw error;
  }
  return { image, address, forgetImage, close };
}
