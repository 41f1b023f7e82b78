// `gantry volumes list|get|create|update|delete`: network volumes over /v2/network-volumes.
import type { Command } from 'commander';
import { integer, setIfGiven } from './remote/flag-values.js';
import {
  collectionCommand,
  createVerb,
  deleteVerb,
  getVerb,
  listVerb,
  updateVerb,
  type BodyFlags,
  type Collection,
} from './remote/resource.js';

interface VolumeRow {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
}

const VOLUMES: Collection<VolumeRow> = {
  name: 'volumes',
  noun: 'network volume',
  path: '/v2/network-volumes',
  listKey: 'networkVolumes',
  columns: [
    { header: 'ID', value: (v) => v.id },
    { header: 'NAME', value: (v) => v.name },
    { header: 'SIZE GB', value: (v) => String(v.size) },
    { header: 'DATA CENTER', value: (v) => v.dataCenter },
  ],
};

interface VolumeFlags {
  name?: string;
  size?: number;
  dataCenter?: string;
}

const CREATE: BodyFlags<VolumeFlags> = {
  add: (command) =>
    command
      .option('--name <name>', 'a name for the volume')
      .option('--size <gb>', 'size in GB (10 to 4096)', integer(1))
      .option('--data-center <id>', 'where it lives, e.g. LOCAL (see gantry endpoints and the catalog)'),
  build(flags, base) {
    const body = { ...base };
    setIfGiven(body, 'name', flags.name);
    setIfGiven(body, 'size', flags.size);
    setIfGiven(body, 'dataCenter', flags.dataCenter);
    return body;
  },
};

/** The data center is fixed once made, and a volume only grows. */
const UPDATE: BodyFlags<VolumeFlags> = {
  add: (command) => command.option('--name <name>', 'a new name').option('--size <gb>', 'a larger size in GB', integer(1)),
  build(flags, base) {
    const body = { ...base };
    setIfGiven(body, 'name', flags.name);
    setIfGiven(body, 'size', flags.size);
    return body;
  },
};

export function volumesCommand(): Command {
  return collectionCommand('volumes', 'list, create, grow and delete network volumes, mounted at /runpod-volume in workers', [
    listVerb(VOLUMES),
    getVerb(VOLUMES),
    createVerb(VOLUMES, CREATE),
    updateVerb(VOLUMES, UPDATE),
    deleteVerb(VOLUMES),
  ]);
}
