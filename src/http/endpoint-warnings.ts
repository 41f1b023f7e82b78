// What a user should hear at once about an endpoint that was accepted but will not run as it
// stands: nothing of its kind exists on this deployment, or the process provider has no command
// to run. Sent as `Gantry-Warning` headers beside the created or changed endpoint, and logged.
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { GantryConfig } from '../config.js';
import type { CapacityPool } from '../catalog/capacity-pool.js';
import { explainUnplaceable } from '../catalog/placement-explainer.js';
import type { EndpointRecord } from '../store/store.js';

export function endpointWarnings(endpoint: EndpointRecord, capacity: CapacityPool, config: GantryConfig): string[] {
  if (config.workerProvider === 'none') return [];
  const warnings: string[] = [];
  const spec = endpoint.spec;
  if (config.workerProvider === 'process' && spec.entrypoint.length + spec.cmd.length === 0) {
    warnings.push(
      "the process provider runs an endpoint's command, and this one has none: set args (or entrypoint/cmd), or run Gantry with --worker-provider docker to run the image as built",
    );
  }
  const unplaceable = capacity.canEverPlace(spec) ? undefined : explainUnplaceable(spec, capacity, capacity.catalog);
  if (unplaceable?.lasting) warnings.push(`no worker can be placed: ${unplaceable.reason}`);
  return warnings;
}

export function sendWarnings(reply: FastifyReply, log: FastifyBaseLogger, endpointId: string, warnings: string[]): void {
  if (warnings.length === 0) return;
  // Header values are one line of visible ASCII.
  reply.header(
    'Gantry-Warning',
    warnings.map((w) => w.replace(/[^\x20-\x7e]/g, '?')),
  );
  log.warn({ endpointId, warnings }, 'endpoint accepted, but it will not run as it stands');
}
