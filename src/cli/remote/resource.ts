// The verbs a REST collection such as /v2/templates gets (list, get, create, update, delete),
// made from a short description of it. A command group for a new collection (secrets, volumes)
// is one small file: its description, its columns and the flags that build its body.
import { Command } from 'commander';
import { CliError } from '../options.js';
import { clientFrom, pathSegment } from './api-client.js';
import { withConnection, type ConnectionFlags } from './connection.js';
import { readJsonObjectFile } from './json-input.js';
import { formatRecord, formatTable, type Column } from '../output/table.js';
import { print, printJson, withJson, withQuiet, type OutputFlags } from '../output/print.js';

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');

export interface Resource {
  id: string;
}

export interface Collection<Row extends Resource> {
  /** The command group's name, plural: `templates`. */
  name: string;
  /** One of them, for messages: `template`. */
  noun: string;
  /** The REST path of the collection: `/v2/templates`. */
  path: string;
  /** The key of the list answer that holds the rows: `{"templates": [...]}`. */
  listKey: string;
  columns: Column<Row>[];
}

/** How a create or update body is made: flags for the common fields, laid over `--file`'s JSON. */
export interface BodyFlags<F> {
  add(command: Command): Command;
  /** The body: `base` is the file's JSON (or {}), changed by the flags given. */
  build(flags: F, base: Record<string, unknown>): Record<string, unknown>;
}

type RemoteFlags = ConnectionFlags & OutputFlags;
type FileFlags = { file?: string };

/** A command taking the connection and --json, whose action gets a client. */
export function remoteCommand(name: string, description: string): Command {
  return withJson(withConnection(new Command(name).description(description)));
}

/** Shows one resource: the raw JSON, only its id, or field per line. */
export function showResource(row: Record<string, unknown>, flags: OutputFlags): void {
  if (flags.json) printJson(row);
  else if (flags.quiet) print(String(row.id));
  else print(formatRecord(row));
}

export function listVerb<Row extends Resource>(collection: Collection<Row>): Command {
  return remoteCommand('list', `list your ${collection.name}`).action(async (flags: RemoteFlags) => {
    const answer = await clientFrom(flags).call<Record<string, Row[]>>('GET', collection.path);
    if (flags.json) return printJson(answer);
    const rows = answer[collection.listKey] ?? [];
    print(rows.length === 0 ? `no ${collection.name}` : formatTable(collection.columns, rows));
  });
}

export function getVerb<Row extends Resource>(collection: Collection<Row>): Command {
  return remoteCommand('get', `show one ${collection.noun}`)
    .argument('<id>', `the ${collection.noun}'s id`)
    .action(async (id: string, flags: RemoteFlags) => {
      showResource(await clientFrom(flags).call('GET', `${collection.path}/${pathSegment(id)}`), flags);
    });
}

export function deleteVerb<Row extends Resource>(collection: Collection<Row>): Command {
  return remoteCommand('delete', `delete ${collection.name} by id`)
    .argument('<ids...>', `the ${collection.noun} ids`)
    .action(async (ids: string[], flags: RemoteFlags) => {
      const client = clientFrom(flags);
      // Each id is tried: one that fails is reported and the rest are still deleted.
      const failed: string[] = [];
      for (const id of ids) {
        try {
          await client.call('DELETE', `${collection.path}/${pathSegment(id)}`);
          if (!flags.json) print(`deleted ${collection.noun} ${id}`);
        } catch (error) {
          if (!(error instanceof CliError) || ids.length === 1) throw error;
          failed.push(id);
          process.stderr.write(`${collection.noun} ${id}: ${error.message}\n`);
        }
      }
      if (failed.length > 0) throw new CliError(`${failed.length} of ${ids.length} ${collection.name} not deleted: ${failed.join(', ')}`);
    });
}

export function createVerb<Row extends Resource, F>(collection: Collection<Row>, body: BodyFlags<F>): Command {
  const command = withQuiet(
    remoteCommand('create', `create ${article(collection.noun)} ${collection.noun} from flags, from --file, or both (flags win)`),
  );
  return withFile(body.add(command)).action(async (flags: F & RemoteFlags & FileFlags) => {
    const sent = body.build(flags, flags.file ? readJsonObjectFile(flags.file) : {});
    showResource(await clientFrom(flags).call('POST', collection.path, sent), flags);
  });
}

export function updateVerb<Row extends Resource, F>(collection: Collection<Row>, body: BodyFlags<F>): Command {
  const command = withQuiet(
    remoteCommand('update', `change the fields given of ${article(collection.noun)} ${collection.noun}; the rest stay as they are`),
  );
  return withFile(body.add(command))
    .argument('<id>', `the ${collection.noun}'s id`)
    .action(async (id: string, flags: F & RemoteFlags & FileFlags) => {
      const sent = body.build(flags, flags.file ? readJsonObjectFile(flags.file) : {});
      showResource(await clientFrom(flags).call('PATCH', `${collection.path}/${pathSegment(id)}`, sent), flags);
    });
}

function withFile(command: Command): Command {
  return command.option('-f, --file <file>', 'the JSON body, as the REST API takes it; - reads stdin');
}

/** The group command holding a collection's verbs. */
export function collectionCommand(name: string, description: string, verbs: Command[]): Command {
  const group = new Command(name).description(description);
  for (const verb of verbs) group.addCommand(verb);
  return group;
}
