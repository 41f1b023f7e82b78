// A Provider that runs nothing: it records what the runtime asks of it (starts, stops, freezes,
// thaws) and lets a test make a worker crash or refuse to start. HTTP workers are "placed" on a
// host of the provider's choosing, as a container engine or a scheduler would.
import type { LogLine, Provider, StartOptions, WorkerExit, WorkerHandle, WorkerSpec } from '../../src/runtime/provider.js';

export const FAKE_WORKER_HOST = '10.20.30.40';

/** Starts of one image held until the test lets them finish, as a long image pull would. */
export class HeldStarts {
  private readonly waiting: { resolve: () => void; reject: (error: Error) => void; onProgress: ((message: string) => void) | undefined }[] =
    [];

  get count(): number {
    return this.waiting.length;
  }

  wait(onProgress: ((message: string) => void) | undefined): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject, onProgress }));
  }

  /** What the provider says it is doing, to every start held. */
  progress(message: string): void {
    for (const start of this.waiting) start.onProgress?.(message);
  }

  finish(): void {
    for (const start of this.waiting.splice(0)) start.resolve();
  }

  fail(message: string): void {
    for (const start of this.waiting.splice(0)) start.reject(new Error(message));
  }
}

export class FakeProvider implements Provider {
  readonly name = 'fake';
  readonly started: WorkerSpec[] = [];
  readonly stopped: string[] = [];
  /** Every stop asked for, repeats included. */
  readonly stopCalls: string[] = [];
  /** While set, stops wait for it: a worker slow to exit. */
  private stopsHeld: Promise<void> | undefined;
  readonly frozen: string[] = [];
  readonly thawed: string[] = [];
  /** Workers up now, with whether they are frozen. */
  readonly running = new Map<string, { spec: WorkerSpec; frozen: boolean }>();
  private readonly listeners = new Set<(exit: WorkerExit) => void>();
  private readonly lines = new Map<string, LogLine[]>();
  private refusal: string | undefined;
  private readonly held = new Map<string, HeldStarts>();
  private nextPort = 41000;

  constructor(private readonly now: () => number) {}

  /** Starts of this image wait until the test finishes (or fails) them. */
  holdStarts(image: string): HeldStarts {
    const held = new HeldStarts();
    this.held.set(image, held);
    return held;
  }

  /** The next start fails with this message. */
  refuseNextStart(message: string): void {
    this.refusal = message;
  }

  async start(spec: WorkerSpec, options?: StartOptions): Promise<WorkerHandle> {
    options?.onProgress?.(`pulling ${spec.image}`);
    const held = this.held.get(spec.image);
    if (held) await held.wait(options?.onProgress);
    if (this.refusal !== undefined) {
      const message = this.refusal;
      this.refusal = undefined;
      throw new Error(message);
    }
    this.started.push(spec);
    this.running.set(spec.workerId, { spec, frozen: false });
    const http = spec.http ? { host: FAKE_WORKER_HOST, port: this.nextPort++, healthPort: this.nextPort++ } : undefined;
    return { workerId: spec.workerId, startedAt: this.now(), ...(http ? { http } : {}) };
  }

  /** Stops wait until the returned function is called, as a worker using its whole grace would. */
  holdStops(): () => void {
    let finish!: () => void;
    this.stopsHeld = new Promise((resolve) => (finish = resolve));
    return () => {
      this.stopsHeld = undefined;
      finish();
    };
  }

  async stop(workerId: string): Promise<void> {
    this.stopCalls.push(workerId);
    if (this.stopsHeld && this.running.has(workerId)) await this.stopsHeld;
    if (!this.running.delete(workerId)) return;
    this.stopped.push(workerId);
    this.emit({ workerId, code: 0, signal: null, expected: true, at: this.now() });
  }

  async freeze(workerId: string): Promise<void> {
    const worker = this.running.get(workerId);
    if (!worker || worker.frozen) return;
    worker.frozen = true;
    this.frozen.push(workerId);
  }

  async thaw(workerId: string): Promise<void> {
    const worker = this.running.get(workerId);
    if (!worker || !worker.frozen) return;
    worker.frozen = false;
    this.thawed.push(workerId);
  }

  /** The worker ends by itself, after printing its last words. */
  crash(workerId: string, code = 1, lastWords: string[] = []): void {
    if (!this.running.delete(workerId)) throw new Error(`${workerId} is not running`);
    this.lines.set(
      workerId,
      lastWords.map((line) => ({ ts: new Date(this.now()).toISOString(), source: 'stderr', line })),
    );
    this.emit({ workerId, code, signal: null, expected: false, at: this.now() });
  }

  onExit(listener: (exit: WorkerExit) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  logs(workerId: string, tail: number): LogLine[] {
    return (this.lines.get(workerId) ?? []).slice(-tail);
  }

  followLogs(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    for (const workerId of [...this.running.keys()]) await this.stop(workerId);
  }

  private emit(exit: WorkerExit): void {
    for (const listener of this.listeners) listener(exit);
  }
}
