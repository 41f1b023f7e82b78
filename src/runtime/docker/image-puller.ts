// Makes sure an image is on the engine before a container is made from it: pulled when it is
// missing, and again for a tag that moves (`:latest`), with its progress in the worker's log.
// Concurrent starts of one image share one pull. A failed pull names the image, the registry
// and the registry's answer, which becomes the crash-loop reason an operator reads in /workers.
import type Docker from 'dockerode';
import { followsLatest, registryOf } from './image-reference.js';
import { engineMessage } from './engine-message.js';
import type { RegistryLogin } from '../ports.js';

export type { RegistryLogin };

interface PullEvent {
  status?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** Per-layer states worth a log line; "Downloading" and "Extracting" repeat many times a second. */
const QUIET_STATUSES = new Set(['Downloading', 'Extracting', 'Waiting']);

export class ImagePuller {
  private readonly pulling = new Map<string, Promise<void>>();

  constructor(private readonly docker: Docker) {}

  async ensure(image: string, login: RegistryLogin | undefined, log: (line: string) => void): Promise<void> {
    const present = await this.isPresent(image);
    if (present && !followsLatest(image)) return;
    try {
      await this.pullOnce(image, login, log);
    } catch (error) {
      // A moving tag whose registry cannot be reached still runs the copy the engine has.
      if (!present) throw error;
      log(`${(error as Error).message}; using the local copy`);
    }
  }

  private async isPresent(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return false;
      throw error;
    }
  }

  private pullOnce(image: string, login: RegistryLogin | undefined, log: (line: string) => void): Promise<void> {
    const key = `${image}\n${login?.username ?? ''}`;
    let pull = this.pulling.get(key);
    if (!pull) {
      pull = this.pull(image, login, log).finally(() => this.pulling.delete(key));
      this.pulling.set(key, pull);
    }
    return pull;
  }

  private async pull(image: string, login: RegistryLogin | undefined, log: (line: string) => void): Promise<void> {
    const registry = registryOf(image);
    const failed = (answer: string) => new Error(`cannot pull image '${image}' from ${registry}: ${answer.trim()}`);
    // The username is write-only like the password: the log, which the API serves, names the login instead.
    log(`pulling ${image} from ${registry}${login ? ` with ${login.label ?? 'a registry login'}` : ''}`);
    const options = login ? { authconfig: { username: login.username, password: login.password, serveraddress: registry } } : {};
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.pull(image, options);
    } catch (error) {
      throw failed(engineMessage(error));
    }
    await new Promise<void>((resolve, reject) => {
      let streamError: string | undefined;
      this.docker.modem.followProgress(
        stream,
        (err) => {
          if (err) reject(failed(err.message));
          else if (streamError !== undefined) reject(failed(streamError));
          else resolve();
        },
        (event: PullEvent) => {
          if (event.error !== undefined) streamError = event.errorDetail?.message ?? event.error;
          else if (event.status && !QUIET_STATUSES.has(event.status)) log(event.id ? `${event.id}: ${event.status}` : event.status);
        },
      );
    });
    log(`pulled ${image}`);
  }
}
