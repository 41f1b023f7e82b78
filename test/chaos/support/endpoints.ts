// Endpoint bodies the scenarios create: the smallest valid queue and load-balancing endpoints.
import { callJson } from './http.js';
export { queueEndpointBody } from '../../support/endpoint-bodies.js';

export function loadBalancerEndpointBody(name: string): Record<string, unknown> {
  return {
    name,
    type: 'LOAD_BALANCER',
    image: 'chaos/http:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount: 4 },
    workers: { min: 0, max: 1, idleTimeout: 5 },
  };
}

/** Creates an endpoint and returns its id; a refusal fails the scenario with the answer. */
export async function createEndpoint(base: string, apiKey: string, body: Record<string, unknown>): Promise<string> {
  const created = await callJson(base, apiKey, 'POST', '/v2/serverless', body);
  if (created.status !== 201 || typeof created.json?.id !== 'string') {
    throw new Error(`creating endpoint ${String(body.name)} answered ${created.status}: ${created.text}`);
  }
  return created.json.id;
}
