// `gantry secrets list|create|rotate|delete`: per-account secrets over /v2/secrets, referenced
// in env values as {{ RUNPOD_SECRET_<name> }}. Values are write-only: read from stdin or asked
// for unechoed, never taken from the process list unless --value is given, and never printed.
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from './options.js';
import { clientFrom, pathSegment } from './remote/api-client.js';
import { askSecret, canPrompt, readStdinLine } from './remote/prompt.js';
import { collectionCommand, remoteCommand } from './remote/resource.js';
import { formatTable } from './output/table.js';
import { print, printJson, type OutputFlags } from './output/print.js';
import type { ConnectionFlags } from './remote/connection.js';

interface SecretRow {
  name: string;
  createdAt: string;
  updatedAt: string;
}

type Flags = ConnectionFlags & OutputFlags & { value?: string; valueStdin?: boolean };
const path = (name: string) => `/v2/secrets/${pathSegment(name)}`;

async function valueFrom(flags: Flags): Promise<string> {
  if (flags.valueStdin) return readStdinLine('value');
  if (flags.value !== undefined) return flags.value;
  if (!canPrompt()) throw new CliError('give the value with --value-stdin (or --value)', EXIT_USAGE);
  return askSecret('Value: ');
}

const withValue = (command: Command) =>
  command
    .option('--value-stdin', 'read the value from stdin')
    .option('--value <value>', 'the value (visible in shell history: prefer --value-stdin)');

export function secretsCommand(): Command {
  const list = remoteCommand('list', 'list your secrets: names and times, never values').action(async (flags: Flags) => {
    const answer = await clientFrom(flags).call<{ secrets: SecretRow[] }>('GET', '/v2/secrets');
    if (flags.json) return printJson(answer);
    const columns = [
      { header: 'NAME', value: (s: SecretRow) => s.name },
      { header: 'CREATED', value: (s: SecretRow) => s.createdAt },
      { header: 'UPDATED', value: (s: SecretRow) => s.updatedAt },
    ];
    print(answer.secrets.length === 0 ? 'no secrets' : formatTable(columns, answer.secrets));
  });
  const create = withValue(remoteCommand('create', 'store a secret under a name'))
    .argument('<name>', 'its name, as env values reference it: {{ RUNPOD_SECRET_<name> }}')
    .action(async (name: string, flags: Flags) => {
      const created = await clientFrom(flags).call<SecretRow>('POST', '/v2/secrets', { name, value: await valueFrom(flags) });
      if (flags.json) printJson(created);
      else print(`stored secret ${created.name}: reference it as {{ RUNPOD_SECRET_${created.name} }}`);
    });
  const rotate = withValue(remoteCommand('rotate', 'give a secret a new value; workers started from now on get it'))
    .argument('<name>', 'the secret')
    .action(async (name: string, flags: Flags) => {
      const rotated = await clientFrom(flags).call<SecretRow>('PATCH', path(name), { value: await valueFrom(flags) });
      if (flags.json) printJson(rotated);
      else print(`rotated secret ${rotated.name}`);
    });
  const remove = remoteCommand('delete', 'delete secrets by name')
    .argument('<names...>', 'the secrets')
    .action(async (names: string[], flags: Flags) => {
      const client = clientFrom(flags);
      for (const name of names) {
        await client.call('DELETE', path(name));
        if (!flags.json) print(`deleted secret ${name}`);
      }
    });
  return collectionCommand('secrets', 'store, rotate and delete the secrets env values reference', [list, create, rotate, remove]);
}
