#!/usr/bin/env node
// The gantry command: the operator's verbs (serve, keys, ...) and the everyday ones that talk to
// a running server (endpoints, jobs, logs, ...); commands.ts lists them all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { PACKAGE_ROOT } from '../paths.js';
import { CliError, EXIT_USAGE } from './options.js';
import { StoreRefusal } from '../store/shared/refusals.js';
import { CLIENT_COMMANDS, OPERATOR_COMMANDS } from './commands.js';

const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

const EXIT_CODES = `
Exit status: 0 done; 1 the server or the API refused (the message says why); 2 bad usage;
3 a job waited for ended FAILED, CANCELLED or TIMED_OUT.`;

const program = new Command('gantry')
  .description('Gantry: a self-hostable serverless platform for GPU and CPU workers')
  .version(version)
  .showHelpAfterError()
  .exitOverride()
  .addHelpText('after', EXIT_CODES);
for (const make of [...OPERATOR_COMMANDS, ...CLIENT_COMMANDS]) {
  for (const command of [make()].flat()) program.addCommand(command);
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}
applyExitOverride(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; commander has already printed what it had to say.
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  if (error instanceof CliError || error instanceof StoreRefusal) {
    process.stderr.write(`gantry: ${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : 1);
  }
  process.stderr.write(`gantry: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
