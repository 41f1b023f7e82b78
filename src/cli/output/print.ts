// The output options every remote verb shares: --json for scripts, --quiet for just an id.
import type { Command } from 'commander';

export interface OutputFlags {
  json?: boolean;
  quiet?: boolean;
}

export function withJson(command: Command): Command {
  return command.option('--json', "print the API's JSON answer as it is, for scripts");
}

export function withQuiet(command: Command): Command {
  return command.option('-q, --quiet', 'print only the id, for scripts: ID=$(gantry ... -q)');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
