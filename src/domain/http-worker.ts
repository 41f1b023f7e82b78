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
  // PORT_HEALTH defaults to 80 as the contract says, not to PORT: a worker that moves only PORT
  // is still checked on 80, exactly as on the hosted service.
  const healthPort = Number(spec.env.PORT_HEALTH ?? DEFAULT_HTTP_PORT);
  const path = spec.env.HEALTH_CHECK_PATH ?? DEFAULT_HEALTH_CHECK_PATH;
  return { port, healthPort, healthPath: path.startsWith('/') ? path : `/${path}` };
}
