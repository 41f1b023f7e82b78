// Legacy GraphQL pod operations on a replica that does not lead: pods are run by the leader (as
// REST /v2/pods, relayed untouched in balancer/pod-proxy.ts), so a request whose document names a
// pod field is passed whole to the leader, key included, and its answer returned as it is. The
// leader authenticates and runs it as any request; other operations stay local.
import { parse, visit, type DocumentNode } from 'graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpAddress } from '../../domain/workers.js';
import { ApiError } from '../problem.js';

/** Root fields (and `myself.pods`) that act on pods. */
const POD_FIELDS = new Set(['pod', 'pods', 'podFindAndDeployOnDemand', 'deployCpuPod', 'podStop', 'podResume', 'podTerminate']);
/** Marks a relayed request, so two replicas that briefly disagree on the leader never bounce it between them. */
const RELAYED = 'x-gantry-relayed';
/** Answer headers the caller should see from the leader (the deprecation ones are set here too). */
const ANSWER_HEADERS = ['content-type', 'retry-after', 'ratelimit', 'ratelimit-policy'];

/** Whether the document names a pod field anywhere; a document that does not parse stays local (and fails there). */
export function namesPods(query: string): boolean {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return false;
  }
  let found = false;
  visit(document, {
    Field(node) {
      if (POD_FIELDS.has(node.name.value)) found = true;
    },
  });
  return found;
}

/** Whether this request is one to pass on: not relayed already, and about pods. */
export function relaysToLeader(request: FastifyRequest): boolean {
  const body = request.body as { query?: unknown };
  return request.headers[RELAYED] === undefined && typeof body.query === 'string' && namesPods(body.query);
}

export async function relayGraphQL(leader: HttpAddress, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const host = leader.host.includes(':') ? `[${leader.host}]` : leader.host;
  const headers: Record<string, string> = { 'content-type': 'application/json', [RELAYED]: '1' };
  for (const name of ['authorization', 'user-agent']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  let answer: Response;
  try {
    // The URL as sent: runpodctl's key is in ?api_key=.
    answer = await fetch(`http://${host}:${leader.port}${request.url}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(RELAY_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ApiError(502, `the leading replica, which runs pods, did not answer: ${(error as Error).message}`);
  }
  for (const name of ANSWER_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  return reply.code(answer.status).send(await answer.text());
}

/** A pod create may pull an image on the leader before answering; the hosted clients wait as long. */
const RELAY_TIMEOUT_MS = 300_000;
