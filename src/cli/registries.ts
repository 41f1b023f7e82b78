// `gantry registries list|create|delete`: private registry logins over /v2/registries. The
// password is write-only: never printed, and best not typed as a flag (shell history, ps).
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from './options.js';
import { setIfGiven } from './remote/flag-values.js';
import { askSecret, canPrompt, readStdinLine } from './remote/prompt.js';
import { collectionCommand, createVerb, deleteVerb, listVerb, type BodyFlags, type Collection } from './remote/resource.js';

interface RegistryRow {
  id: string;
  name: string;
}

const REGISTRIES: Collection<RegistryRow> = {
  name: 'registries',
  noun: 'registry credential',
  path: '/v2/registries',
  listKey: 'registries',
  columns: [
    { header: 'ID', value: (r) => r.id },
    { header: 'NAME', value: (r) => r.name },
  ],
};

interface RegistryFlags {
  name?: string;
  username?: string;
  password?: string;
  passwordStdin?: boolean;
}

const CREATE: BodyFlags<RegistryFlags> = {
  add: (command) =>
    command
      .option('--name <name>', 'a name for the login, unique in your account')
      .option('--username <user>', 'the registry username')
      .option('--password-stdin', 'read the password or token from stdin')
      .option('--password <password>', 'the password or token (visible in shell history: prefer --password-stdin)'),
  build(flags, base) {
    const body = { ...base };
    setIfGiven(body, 'name', flags.name);
    setIfGiven(body, 'username', flags.username);
    if (flags.passwordStdin) body.password = readStdinLine('password');
    else setIfGiven(body, 'password', flags.password);
    return body;
  },
};

export function registriesCommand(): Command {
  const create = createVerb(REGISTRIES, CREATE);
  // On a terminal, a password given neither as a flag nor in the file is asked for, unechoed.
  create.hook('preAction', async (command) => {
    const flags = command.opts<RegistryFlags & { file?: string }>();
    if (flags.password !== undefined || flags.passwordStdin || flags.file) return;
    if (!canPrompt()) throw new CliError('give the password with --password-stdin (or --password, or in --file)', EXIT_USAGE);
    command.setOptionValue('password', await askSecret('Password or token: '));
  });
  return collectionCommand('registries', 'list, store and delete container registry logins for private images', [
    listVerb(REGISTRIES),
    create,
    deleteVerb(REGISTRIES),
  ]);
}
