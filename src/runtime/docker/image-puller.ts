// Makes sure an image is on the engine before a container is made from it: pulled when it is
// missing, and again for a tag that moves (`:latest`), with its progress in the worker's log.
// Concurrent starts of one image share one pull, and each hears its progress ("pulling image x:
// 40%"). A failed pull names the image, the registry and the registry's answer, which becomes
// the crash-loop reason an operator reads in /workers.
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
  progressDetail?: { current?: number; total?: number };
}

/** What a pull reports: its log lines, and its progress as one line for whoever waits on it. */
export interface PullListener {
  log: (line: string) => void;
  progress?: (message: string) => void;
}

interface SharedPull {
  done: Promise<void>;
  listeners: Set<PullListener>;
}

/** Progress is reported each time it moves by this many percent, not on every chunk. */
const PROGRESS_STEP_PERCENT = 5;

/** Per-layer states worth a log line; "Downloading" and "Extracting" repeat many times a second. */
const QUIET_STATUSES = new Set(['Downloading', 'Extracting', 'Waiting']);

/** A pull the engine says nothing of for this long is given up: a registry that never answers holds it forever. */
export const PULL_SILENCE_LIMIT_MS = 120_000;

export class ImagePuller {
  private readonly pulling = new Map<string, SharedPull>();
  /** The pulls under way, so close() can end them. */
  private readonly underWay = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly silenceLimitMs = PULL_SILENCE_LIMIT_MS,
  ) {}

  /** Ends every pull under way (the engine drops a pull its client leaves) and refuses new ones. */
  close(): void {
    this.closed = true;
    for (const pull of this.underWay) pull.abort(new Error('Gantry is shutting down'));
  }

  async ensure(image: string, login: RegistryLogin | undefined, listener: PullListener): Promise<void> {
    const present = await this.isPresent(image);
    if (present && !followsLatest(image)) return;
    try {
      await this.pullOnce(image, login, listener);
    } catch (error) {
      // A moving tag whose registry cannot be reached still runs the copy the engine has.
      if (!present) throw error;
      listener.log(`${(error as Error).message}; using the local copy`);
    }
  }

  private async isPresent(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return false;
      throw new Error(`cannot look up image '${image}' on the engine: ${engineMessage(error)}`);
    }
  }

  private async pullOnce(image: string, login: RegistryLogin | undefined, listener: PullListener): Promise<void> {
    const key = `${image}\n${login?.username ?? ''}`;
    let pull = this.pulling.get(key);
    if (!pull) {
      // The listener is in before the pull starts: its first lines are said at once.
      const listeners = new Set<PullListener>([listener]);
      const shared: SharedPull = { listeners, done: Promise.resolve() };
      shared.done = this.pull(image, login, listeners).finally(() => this.pulling.delete(key));
      this.pulling.set(key, shared);
      pull = shared;
    }
    pull.listeners.add(listener);
    try {
      await pull.done;
    } finally {
      pull.listeners.delete(listener);
    }
  }

  private async pull(image: string, login: RegistryLogin | undefined, listeners: Set<PullListener>): Promise<void> {
    const log = (line: string) => listeners.forEach((l) => l.log(line));
    const progress = new PullProgress(image, (message) => listeners.forEach((l) => l.progress?.(message)));
    const registry = registryOf(image);
    const failed = (answer: string) => new Error(`cannot pull image '${image}' from ${registry}: ${answer.trim()}`);
    // The username is write-only like the password: the log, which the API serves, names the login instead.
    log(`pulling ${image} from ${registry}${login ? ` with ${login.label ?? 'a registry login'}` : ''}`);
    progress.report(`pulling image ${image}`);
    const options = login ? { authconfig: { username: login.username, password: login.password, serveraddress: registry } } : {};
    if (this.closed) throw failed('Gantry is shutting down');
    const abort = new AbortController();
    this.underWay.add(abort);
    // The engine answers only once the registry does: silence is timed from the request on.
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(
        () => abort.abort(new Error(`the engine reported nothing for ${this.silenceLimitMs / 1000} s; is the registry answering?`)),
        this.silenceLimitMs,
      );
    };
    const whyAborted = () => (abort.signal.reason as Error).message;
    try {
      heard();
      let stream: NodeJS.ReadableStream & { destroy?: () => void };
      try {
        stream = await this.docker.pull(image, { ...options, abortSignal: abort.signal });
      } catch (error) {
        throw failed(abort.signal.aborted ? whyAborted() : engineMessage(error));
      }
      await new Promise<void>((resolve, reject) => {
        let streamError: string | undefined;
        const onAbort = () => {
          reject(failed(whyAborted()));
          stream.destroy?.();
        };
        if (abort.signal.aborted) return onAbort();
        abort.signal.addEventListener('abort', onAbort, { once: true });
        this.docker.modem.followProgress(
          stream,
          (err) => {
            if (abort.signal.aborted) return;
            if (err) reject(failed(err.message));
            else if (streamError !== undefined) reject(failed(streamError));
            else resolve();
          },
          (event: PullEvent) => {
            heard();
            if (event.error !== undefined) streamError = event.errorDetail?.message ?? event.error;
            else if (event.status && !QUIET_STATUSES.has(event.status)) log(event.id ? `${event.id}: ${event.status}` : event.status);
            progress.saw(event);
          },
        );
      });
    } finally {
      clearTimeout(silence);
      this.underWay.delete(abort);
    }
    log(`pulled ${image}`);
  }
}

/** The bytes downloaded of every layer whose size is known so far, as one percentage. */
class PullProgress {
  private readonly layers = new Map<string, { current: number; total: number }>();
  private lastPercent = -PROGRESS_STEP_PERCENT;

  constructor(
    private readonly image: string,
    readonly report: (message: string) => void,
  ) {}

  saw(event: PullEvent): void {
    if (!event.id) return;
    if (event.status === 'Downloading' && event.progressDetail?.total) {
      this.layers.set(event.id, { current: event.progressDetail.current ?? 0, total: event.progressDetail.total });
    } else if (event.status === 'Download complete' || event.status === 'Pull complete') {
      const layer = this.layers.get(event.id);
      if (layer) layer.current = layer.total;
    } else {
      return;
    }
    let current = 0;
    let total = 0;
    for (const layer of this.layers.values()) {
      current += layer.current;
      total += layer.total;
    }
    const percent = total === 0 ? 0 : Math.floor((100 * current) / total);
    // Layers found later can make it go back: it is only reported going forward.
    if (percent === this.lastPercent || (percent < 100 && percent - this.lastPercent < PROGRESS_STEP_PERCENT)) return;
    this.lastPercent = percent;
    this.report(`pulling image ${this.image}: ${percent}%`);
  }
}
