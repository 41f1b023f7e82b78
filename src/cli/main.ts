#!/usr/bin/env node
// The gantry command: serve, keys, worker-env, migrate, doctor.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { PACKAGE_ROOT } from '../paths.js';
import { CliError, EXIT_USAGE } from './options.js';
import { serveCommand } from './serve.js';
import { keysCommand } from './keys.js';
import { migrateCommand } from './migrate.js';
import { workerEnvCommand } from './worker-env.js';
import { doctorCommand } from './doctor.js';

const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

const program = new Command('gantry')
  .description('Gantry: a self-hostable serverless platform for GPU and CPU workers')
  .version(version)
  .showHelpAfterError()
  .exitOverride()
  .addCommand(serveCommand())
  .addCommand(keysCommand())
  .addCommand(workerEnvCommand())
  .addCommand(migrateCommand())
  .addCommand(doctorCommand());

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
  if (error instanceof CliError) {
    process.stderr.write(`gantry: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`gantry: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
