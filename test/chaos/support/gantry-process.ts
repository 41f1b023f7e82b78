// `gantry serve` as a child process, so a scenario can kill it with SIGKILL and start it again on
// the same address and data. The first start asks for port 0 and reads the port the server bound
// from its banner: a port picked here and then handed to a starting process would be free for
// any socket to take while the process loads. Every process started here is killed when the
// test process exits, even after a failed assertion or an uncaught error.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root: the CLI is run from source through tsx, as the rest of the suite does. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI_ENTRY = ['--import', 'tsx', 'src/cli/main.ts'];
/** Preload that lets a scenario force a garbage collection in the server (see gc-on-signal.mjs). */
const GC_PRELOAD = fileURLToPath(new URL('./gc-on-signal.mjs', import.meta.url));

const started = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export interface GantryOptions {
  /** Flags after `serve` (the port, host and log level are set here). */
  args: string[];
  /** Start node with --expose-gc and a SIGUSR2 handler that collects garbage. */
  gcOnSignal?: boolean;
  startTimeoutMs?: number;
}

export class GantryProcess {
  /** 0 until the first start has bound a port; later starts reuse it. */
  private boundPort = 0;
  private child: ChildProcess | undefined;
  private printed = '';
  /** The admin key printed on the very first start of an empty store, if this process printed it. */
  adminKey: string | undefined;

  private constructor(private readonly options: GantryOptions) {}

  static async start(options: GantryOptions): Promise<GantryProcess> {
    const server = new GantryProcess(options);
    await server.start();
    return server;
  }

  get port(): number {
    if (this.boundPort === 0) throw new Error('gantry has not listened yet');
    return this.boundPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** How the last process ended, for reports: `exit 1`, `signal SIGKILL` or `running`. */
  get ending(): string {
    if (!this.child) return 'never started';
    if (this.child.signalCode) return `signal ${this.child.signalCode}`;
    return this.child.exitCode === null ? 'running' : `exit ${this.child.exitCode}`;
  }

  output(lastChars = 3000): string {
    return this.printed.slice(-lastChars);
  }

  /** Starts (or starts again) on the same port and flags; resolves once it listens. */
  async start(): Promise<void> {
    if (this.alive) throw new Error(`gantry on ${this.url} is already running`);
    const nodeFlags = this.options.gcOnSignal ? ['--expose-gc', '--import', GC_PRELOAD] : [];
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        ...CLI_ENTRY,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        String(this.boundPort),
        '--log-level',
        'warn',
        ...this.options.args,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
    );
    this.child = child;
    started.add(child);
    child.on('exit', () => started.delete(child));
    const collect = (data: Buffer) => {
      // Keep the tail only: a long scenario must not grow the test process without bound.
      this.printed = (this.printed + data.toString()).slice(-50_000);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    let printedThisStart = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`gantry serve did not listen within ${this.options.startTimeoutMs ?? 30_000} ms: ${this.output()}`));
      }, this.options.startTimeoutMs ?? 30_000);
      const onData = (data: Buffer) => {
        printedThisStart += data.toString();
        const listening = /listening on http:\/\/[^\s:]+:(\d+)\S*\n/.exec(printedThisStart);
        if (!listening) return;
        this.boundPort = Number(listening[1]);
        child.stdout!.off('data', onData);
        clearTimeout(timer);
        // The banner (with a first start's admin key) is written in one piece after that line.
        setTimeout(() => {
          this.adminKey ??= /^\s+(gantry_\S+)$/m.exec(this.printed)?.[1];
          resolve();
        }, 100);
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`gantry serve exited (${code ?? signal}) before listening: ${this.output()}`));
      });
    });
  }

  /** Sends `signal` and resolves once the process is gone (SIGKILL: at once). */
  async kill(signal: NodeJS.Signals = 'SIGKILL', timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await gone;
    clearTimeout(timer);
  }

  /** Resident memory of the server process in kilobytes, from /proc/<pid>/status. */
  rssKb(): number {
    if (!this.pid) throw new Error('not running');
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (!match) throw new Error(`no VmRSS in /proc/${this.pid}/status`);
    return Number(match[1]);
  }

  /** Asks the server (started with gcOnSignal) to collect garbage now. */
  forceGc(): void {
    if (!this.options.gcOnSignal || !this.child) throw new Error('start the process with gcOnSignal to force a collection');
    this.child.kill('SIGUSR2');
  }
}
