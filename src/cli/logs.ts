// `gantry logs ENDPOINT WORKER [--follow]`: a worker's log lines, read from the server-sent
// events of /v2/serverless/{id}/workers/{workerId}/logs. While following, a dropped connection
// is resumed after the last line seen (Last-Event-ID), so no line is shown twice or lost.
import { type Command, Option } from 'commander';
import { CliError } from './options.js';
import { clientFrom, pathSegment, Unreachable, type ApiClient } from './remote/api-client.js';
import { remoteCommand } from './remote/resource.js';
import type { ConnectionFlags } from './remote/connection.js';
import { integer } from './remote/flag-values.js';
import type { OutputFlags } from './output/print.js';

interface LogLine {
  source: string;
  line: string;
  ts: string;
}

interface LogFlags extends ConnectionFlags, OutputFlags {
  follow?: boolean;
  tail?: number;
  since?: string;
  source?: string;
  timestamps?: boolean;
}

/** A second apart: a server restarting has a minute to come back. */
const RECONNECTS = 60;

function show(line: LogLine, flags: LogFlags): void {
  if (flags.json) process.stdout.write(`${JSON.stringify(line)}\n`);
  else process.stdout.write(`${flags.timestamps ? `${line.ts} ` : ''}${line.source === 'system' ? '[gantry] ' : ''}${line.line}\n`);
}

/**
 * Reads one event stream to its end, keeping the id of the last event shown in `seen` as it goes:
 * a stream cut off mid-way resumes after it, so no line is shown twice.
 */
async function readEvents(client: ApiClient, path: string, seen: { lastId?: string }, flags: LogFlags): Promise<void> {
  const res = await client.open(path, seen.lastId ? { 'last-event-id': seen.lastId } : {});
  if (!res.body) return;
  let buffer = '';
  for await (const piece of res.body.pipeThrough(new TextDecoderStream())) {
    buffer += piece;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = new Map(
        event
          .split('\n')
          .filter((l) => !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
      );
      const data = fields.get('data');
      if (data === undefined) continue;
      show(JSON.parse(data) as LogLine, flags);
      seen.lastId = fields.get('id') ?? seen.lastId;
    }
  }
}

export function logsCommand(): Command {
  return remoteCommand('logs', "print a worker's log lines (its output and Gantry's notes about it)")
    .argument('<endpoint>', 'the endpoint id')
    .argument('<worker>', 'the worker id (gantry workers list)')
    .option('-f, --follow', 'keep printing new lines as they come, until interrupted')
    .option('-n, --tail <lines>', 'start with only the last lines', integer(0))
    .option('--since <time>', 'start with the lines at or after this time (ISO 8601)')
    .addOption(new Option('--source <source>', "only the worker's own lines or only Gantry's").choices(['container', 'system']))
    .option('-t, --timestamps', 'prefix each line with its time')
    .action(async (endpointId: string, workerId: string, flags: LogFlags) => {
      const client = clientFrom(flags);
      const query = new URLSearchParams({ follow: flags.follow ? 'true' : 'false' });
      if (flags.tail !== undefined) query.set('tail', String(flags.tail));
      if (flags.since !== undefined) query.set('since', flags.since);
      if (flags.source !== undefined) query.set('source', flags.source);
      const path = `/v2/serverless/${pathSegment(endpointId)}/workers/${pathSegment(workerId)}/logs?${query}`;
      const seen: { lastId?: string } = {};
      for (let attempt = 0; ; attempt++) {
        try {
          await readEvents(client, path, seen, flags);
          if (!flags.follow) return;
        } catch (error) {
          // An API answer (404, 401) is final; a connection dropped mid-stream, or a server
          // restarting, is resumed.
          const final = error instanceof CliError && !(error instanceof Unreachable);
          if (final || !flags.follow || attempt >= RECONNECTS) throw error;
        }
        if (attempt >= RECONNECTS)
          throw new CliError(`the log stream of worker ${workerId} kept closing; stopped after ${RECONNECTS} reconnects`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    });
}
