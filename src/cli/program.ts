// The gantry command's verbs and options, built without running anything: main.ts parses the
// process's arguments with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { PACKAGE_ROOT } from '../paths.js';
import { CLIENT_COMMANDS, OPERATOR_COMMANDS } from './commands.js';

const EXIT_CODES = `
Exit status: 0 done; 1 the server or the API refused (the message says why); 2 bad usage;
3 a job waited for ended FAILED, CANCELLED or TIMED_OUT.`;

/** Every command throws a CommanderError rather than exiting, so the caller picks the exit status. */
export function gantryProgram(): Command {
  const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  const program = new Command('gantry')
    .description('Gantry: a self-hostable serverless platform for GPU and CPU workers')
    .version(version)
    .showHelpAfterError()
    .addHelpText('after', EXIT_CODES);
  for (const make of [...OPERATOR_COMMANDS, ...CLIENT_COMMANDS]) {
    for (const command of [make()].flat()) program.addCommand(command);
  }
  applyExitOverride(program);
  return program;
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}
