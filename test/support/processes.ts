// Gantry and example workers as real child processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `gantry serve` and resolves once it prints its URL; returns the process and everything printed. */
export function serve(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    // A server that never printed is killed, or it would outlive the test and hold its file open.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${out}`));
    }, 60_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match && out.includes('\n', out.indexOf(match[0]))) {
        // Give the banner a moment to finish writing.
        setTimeout(() => {
          clearTimeout(timer);
          // A server that dies without being told to (stop() and kill() tell it) says so, with its output.
          child.on('exit', (code, signal) => {
            if (!child.killed) console.error(`# gantry serve exited on its own (${code ?? signal}):\n${out}`);
          });
          resolve({ child, url: match[1]!, output: () => out });
        }, 100);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** `gantry <args>` run to completion; its stdout, or an error with its stderr. */
export function runCli(args: string[]): string {
  const res = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`gantry ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: any;
}

/** Calls a running Gantry's API with a key, the body as JSON; a call that hangs fails after 15 s, naming itself. */
export async function callApi(base: string, key: string, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  } catch (error) {
    throw new Error(`${method} ${base}${path}: ${(error as Error).message}`);
  }
}

/** SIGTERM (or `signal`), resolving with the exit code once the process is gone. */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** The example worker (examples/echo-worker.ts) as a process with the given worker environment. */
export function startEchoWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `gantry <args>` as a user runs it, without blocking this process (the server under test may be
 * running in it). The environment carries no GANTRY_URL, GANTRY_API_KEY or login file of the
 * machine's: only what `env` gives. `input` is written to its stdin.
 */
export function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  const { GANTRY_URL: _url, GANTRY_API_KEY: _key, XDG_CONFIG_HOME: _config, ...inherited } = process.env;
  const child = spawn(process.execPath, [...CLI, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...inherited, XDG_CONFIG_HOME: '/nonexistent/gantry-test-config', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gantry ${args.join(' ')} did not finish: ${stdout}${stderr}`));
    }, 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
