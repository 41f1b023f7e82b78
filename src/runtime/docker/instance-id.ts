// Which Gantry a container belongs to. The id is the same every time Gantry starts on this host
// with this data directory, so after a crash it recognises the containers it left behind; two
// Gantry instances on one host (different data directories) never take each other's for orphans.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';

export function dockerInstanceId(dataDir: string): string {
  return createHash('sha256')
    .update(`${hostname()}\0${resolve(dataDir)}`)
    .digest('hex')
    .slice(0, 16);
}
