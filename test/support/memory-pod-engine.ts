// A pod engine that runs nothing: containers "start" at once on the injected clock and "exit"
// when a test says so. For tests of what the pod service and the meter make of a pod's timeline
// on a virtual clock; the Docker engine itself is tested in docker-pods*.test.ts.
import type { PodEngine, PodLaunch, PodRun, PodUsage } from '../../src/runtime/pod-engine.js';
import type { LogLine } from '../../src/runtime/provider.js';

export class MemoryPodEngine implements PodEngine {
  readonly name = 'memory';
  readonly launches: PodLaunch[] = [];
  private readonly runs = new Map<string, PodRun>();
  private readonly exitListeners: ((podId: string, code: number | null) => void)[] = [];

  constructor(private readonly now: () => number) {}

  async start(launch: PodLaunch): Promise<PodRun> {
    this.launches.push(launch);
    const run = { startedAt: this.now(), ports: [] };
    this.runs.set(launch.podId, run);
    return run;
  }

  async stop(podId: string): Promise<void> {
    this.runs.delete(podId);
  }

  /** The container ends by itself, with this exit code. */
  exit(podId: string, code: number): void {
    if (!this.runs.delete(podId)) return;
    for (const listener of this.exitListeners) listener(podId, code);
  }

  onExit(listener: (podId: string, code: number | null) => void): () => void {
    this.exitListeners.push(listener);
    return () => this.exitListeners.splice(this.exitListeners.indexOf(listener), 1);
  }

  running(podId: string): PodRun | undefined {
    return this.runs.get(podId);
  }

  async usage(): Promise<PodUsage | undefined> {
    return undefined;
  }

  async recover(known: ReadonlySet<string>): Promise<Map<string, PodRun>> {
    return new Map([...this.runs].filter(([podId]) => known.has(podId)));
  }

  logs(): LogLine[] {
    return [];
  }

  followLogs(): () => void {
    return () => undefined;
  }

  note(): void {}
}
