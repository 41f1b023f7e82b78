// The routes the fuzzer covers: every operation of the server's own /v2/openapi.json, plus those
// the document leaves out (the load-balancer prefix, /metrics, the document itself).
import { request } from '../http.js';

export type RouteAuth = 'api' | 'worker' | 'open';

export interface Route {
  method: string;
  /** Path template with {param} placeholders, as in OpenAPI. */
  template: string;
  auth: RouteAuth;
  /** Largest body this route accepts, in bytes, when it documents one. */
  bodyLimit?: number;
  /** Property names of the JSON body schema, when the route takes one. */
  bodyFields: string[];
}

const WORKER_PROTOCOL = /\/(job-take|job-take-batch|job-done|job-stream|job-stop|ping)\//;
const MB = 1024 * 1024;

function bodyLimitOf(method: string, template: string): number | undefined {
  if (template.endsWith('/runsync')) return 20 * MB;
  if (template.endsWith('/run')) return 10 * MB;
  if (template.startsWith('/v2/serverless') || template.startsWith('/v2/templates'))
    return method === 'GET' || method === 'DELETE' ? undefined : MB;
  return undefined;
}

export async function discoverRoutes(base: string): Promise<Route[]> {
  const answer = await request(`${base}/v2/openapi.json`);
  if (answer.status !== 200) throw new Error(`GET /v2/openapi.json answered ${answer.status}`);
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(answer.json.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      routes.push({
        method: method.toUpperCase(),
        template,
        auth: WORKER_PROTOCOL.test(template) ? 'worker' : 'api',
        bodyLimit: bodyLimitOf(method.toUpperCase(), template),
        bodyFields: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    routes.push({ method, template: '/v2/lb/{lbEndpointId}/{workerPath}', auth: 'api', bodyFields: [] });
  }
  routes.push({ method: 'GET', template: '/metrics', auth: 'api', bodyFields: [] });
  routes.push({ method: 'GET', template: '/v2/openapi.json', auth: 'open', bodyFields: [] });
  return routes;
}
