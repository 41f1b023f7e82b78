// Every verb of the gantry command, in the order `gantry --help` lists them. A new command group
// (for example `gantry secrets`, over its REST group) is one file exporting a Command, added here.
import type { Command } from 'commander';
import { serveCommand } from './serve.js';
import { keysCommand } from './keys.js';
import { migrateCommand } from './migrate.js';
import { workerEnvCommand } from './worker-env.js';
import { doctorCommand } from './doctor.js';
import { loginCommands } from './login.js';
import { endpointsCommand } from './endpoints.js';
import { jobsCommand } from './jobs.js';
import { workersCommand } from './workers.js';
import { logsCommand } from './logs.js';
import { templatesCommand } from './templates.js';
import { registriesCommand } from './registries.js';
import { secretsCommand } from './secrets.js';
import { volumesCommand } from './volumes.js';

/** Verbs that work on a running server through its API. */
export const CLIENT_COMMANDS: (() => Command | Command[])[] = [
  loginCommands,
  endpointsCommand,
  jobsCommand,
  workersCommand,
  logsCommand,
  templatesCommand,
  registriesCommand,
  secretsCommand,
  volumesCommand,
];

/** Verbs of the operator, on the machine that holds the data. */
export const OPERATOR_COMMANDS: (() => Command | Command[])[] = [
  serveCommand,
  keysCommand,
  workerEnvCommand,
  migrateCommand,
  doctorCommand,
];
