// How a load-balancing endpoint's workers serve HTTP, read from the endpoint's env:
// PORT (default 80), PORT_HEALTH and HEALTH_CHECK_PATH (default /ping).
import type { EndpointSpec } from './endpoint-spec.js';

export const DEFAULT_HTTP_PORT = 80;
export const DEFAULT_HEALTH_CHECK_PATH = '/ping';

export interface HttpWorkerSettings {
  port: number;
  healthPort: number;
  healthPath: string;
}

export function httpWorkerSettings(spec: Pick<EndpointSpec, 'env'>): HttpWorkerSettings {
  const port = Number(spec.env.PORT ?? DEFAULT_HTTP_PORT);
  // Without PORT_HEALTH the health check goes to the main port: with the defaults both are 80,
  // and a worker that moves only PORT keeps answering its health check.
  const healthPort = Number(spec.env.PORT_HEALTH ?? port);
  const path = spec.env.HEALTH_CHECK_PATH ?? DEFAULT_HEALTH_CHECK_PATH;
  return { port, healthPort, healthPath: path.startsWith('/') ? path : `/${path}` };
}
