// Questions on the terminal, for values not given as flags; a secret is not echoed.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { CliError, EXIT_USAGE } from '../options.js';

export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** Reads a line with echo off: raw mode, so the typed secret never reaches the screen. */
export function askSecret(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed.trim());
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('cancelled', EXIT_USAGE));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}

/** A secret piped in (`--password-stdin`): the first line of stdin. */
export function readStdinLine(what: string): string {
  const line = readFileSync(0, 'utf8').split(/\r?\n/)[0]?.trim() ?? '';
  if (!line) throw new CliError(`no ${what} on stdin`, EXIT_USAGE);
  return line;
}
