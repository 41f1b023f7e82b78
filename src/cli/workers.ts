// `gantry workers list ENDPOINT`: an endpoint's workers, their states, and why they crash if they do.
import { Command } from 'commander';
import { clientFrom, pathSegment } from './remote/api-client.js';
import { remoteCommand } from './remote/resource.js';
import type { ConnectionFlags } from './remote/connection.js';
import { print, printJson, type OutputFlags } from './output/print.js';
import { formatTable, type Column } from './output/table.js';

interface WorkerRow {
  id: string;
  status: string;
  isStale: boolean;
  version: number | null;
  uptimeSeconds: number | null;
  gpuTypeId: string | null;
  dataCenterId: string | null;
  managed: boolean;
}

interface WorkersAnswer {
  workers: WorkerRow[];
  summary: Record<string, number>;
  crashLoop?: { consecutive: number; lastReason: string; nextStartAt: string; lastLogLines: string[] };
}

const COLUMNS: Column<WorkerRow>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'VERSION', value: (w) => (w.version === null ? '-' : `${w.version}${w.isStale ? ' (stale)' : ''}`) },
  { header: 'UPTIME', value: (w) => (w.uptimeSeconds === null ? '-' : `${w.uptimeSeconds}s`) },
  { header: 'GPU', value: (w) => w.gpuTypeId ?? '-' },
  { header: 'DATA CENTER', value: (w) => w.dataCenterId ?? '-' },
  { header: 'STARTED BY', value: (w) => (w.managed ? 'gantry' : 'hand') },
];

function listCommand(): Command {
  return remoteCommand('list', "list an endpoint's workers, and the crash loop if workers keep dying")
    .argument('<endpoint>', 'the endpoint id')
    .action(async (endpointId: string, flags: ConnectionFlags & OutputFlags) => {
      const answer = await clientFrom(flags).call<WorkersAnswer>('GET', `/v2/serverless/${pathSegment(endpointId)}/workers`);
      if (flags.json) return printJson(answer);
      print(answer.workers.length === 0 ? 'no workers' : formatTable(COLUMNS, answer.workers));
      const counts = Object.entries(answer.summary).filter(([name, n]) => name !== 'total' && n > 0);
      if (counts.length > 0) print(counts.map(([name, n]) => `${n} ${name}`).join(', '));
      const crash = answer.crashLoop;
      if (crash) {
        print(`crash loop: ${crash.consecutive} exits in a row, next start not before ${crash.nextStartAt}`);
        print(`  last reason: ${crash.lastReason}`);
        for (const line of crash.lastLogLines) print(`  | ${line}`);
      }
    });
}

export function workersCommand(): Command {
  return new Command('workers').description("an endpoint's workers").addCommand(listCommand());
}
